#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clinux.h"

/// Whether the object's dynamic section asks for text relocations: its read-only pages were
/// then written by the loader, and are private copies that the file does not hold.
static int has_text_relocations(const struct dl_phdr_info *info) {
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_DYNAMIC) continue;
        for (const ElfW(Dyn) *entry = (const ElfW(Dyn) *)(info->dlpi_addr + header->p_vaddr); entry->d_tag != DT_NULL; entry++) {
            if (entry->d_tag == DT_TEXTREL) return 1;
            if (entry->d_tag == DT_FLAGS && (entry->d_un.d_val & DF_TEXTREL)) return 1;
        }
    }
    return 0;
}

/// The first object dl_iterate_phdr visits is the executable: each of its segments that is
/// not writable, in whole pages (a page it shares with a writable segment is left alone).
static int release_executable(struct dl_phdr_info *info, size_t size, void *result) {
    (void)size;
    if (has_text_relocations(info)) return 1;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_W)) continue;
        uintptr_t start = (info->dlpi_addr + header->p_vaddr + page - 1) & ~(page - 1);
        uintptr_t end = (info->dlpi_addr + header->p_vaddr + header->p_memsz) & ~(page - 1);
        if (end > start && madvise((void *)start, end - start, MADV_DONTNEED) == 0) *(size_t *)result += end - start;
    }
    return 1;
}

size_t flowrun_release_code_pages(void) {
    size_t released = 0;
    dl_iterate_phdr(release_executable, &released);
    return released;
}
