#!/usr/bin/env python3
"""decompress against its peers, over a generated corpus, with faults injected.

    python3 bench/decompress_peer.py --flowrun .build/release/flowrun [--work DIR] [--only compare,faults,kill,disk,rerun]

1. corpus: source trees (many files, deep trees, empty folders, long names, odd bytes, names that
   look like options, links in and out of the tree, modes, old and future times, sparse and empty
   files), archived by GNU tar, bsdtar, Python's tarfile and zipfile, Info-ZIP, in every format
   decompress takes; hostile archives; single compressed files.
2. compare: each archive extracted by flowrun (a workflow of one decompress task) and by bsdtar
   and GNU tar (or gunzip, xz, bzip2, zstd, unzip); trees compared by name, type, bytes, mode,
   mtime, link target and hard-link group.
3. faults: truncations and flipped bytes (a green run must give the archive's true tree), a full
   disk (tmpfs, root only), SIGKILL mid-extraction then a rerun, an extracted file edited, the
   archive replaced.
Python 3 standard library and the CLI tools only. Prints one line per difference and a summary.
"""
import argparse, hashlib, io, os, random, shutil, signal, stat, subprocess, sys, tarfile, time, zipfile

T = 1_600_000_000
ROOT = os.geteuid() == 0


def sh(*argv, ok=(0,), cwd=None, stdin=None, out=subprocess.DEVNULL):
    done = subprocess.run(argv, cwd=cwd, stdin=stdin, stdout=out, stderr=subprocess.PIPE)
    if done.returncode not in ok:
        raise SystemExit('%s: exit %d: %s' % (' '.join(map(str, argv)), done.returncode, done.stderr.decode(errors='replace')))
    return done


def put(path, data=b'', mode=0o644, mtime=T):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data)
    os.chmod(path, mode)
    os.utime(path, (mtime, mtime))


# ---------------------------------------------------------------- source trees

def tree_rich(root):
    """Every shape at once, below one top folder 'top' (so strip_components 1 applies)."""
    r = os.fsencode(os.path.join(root, 'top'))
    j = lambda *p: os.path.join(r, *[x if isinstance(x, bytes) else x.encode() for x in p])
    rnd = random.Random(7)
    for i in range(300):  # many files in a random tree
        depth = rnd.randrange(0, 5)
        folder = [b'd%d' % rnd.randrange(6) for _ in range(depth)]
        size = rnd.choice([0, 1, 17, 511, 512, 513, 4096, 65536, 70000])
        put(j('many', *folder, 'f%03d' % i), bytes(rnd.getrandbits(8) for _ in range(size)), rnd.choice([0o644, 0o600, 0o755, 0o664, 0o444]))
    put(j('deep', *['level%02d' % i for i in range(60)], 'leaf'), b'deep\n')
    for name in ['empty/a', 'empty/b/c', 'empty/d/e/f']:
        os.makedirs(j(name), exist_ok=True)
    put(j('zero'), b'')
    put(j('long', 'n' * 101), b'101\n')
    put(j('long', 'n' * 255), b'255\n')
    put(j('long', *['x' * 200] * 3, 'y' * 200), b'>600 bytes of path\n')
    names = ['with space', ' lead space', 'trail space ', '-rf', '--help', '-', '--', '-C', '日本語.txt', 'naïve', 'e\u0301',
             'emoji 🎉', 'back\\slash', 'colon:star*q?', 'quote"\'', 'semi;amp&', '$HOME', '~', '.hidden', '..dots', '...']
    for n in names:
        put(j('names', n), n.encode() + b'\n')
    for b in [b'latin\xe9', b'bad\xff\xfe', b'ctl\x01\x1f', b'tab\tx', b'nl\nx', b'cr\rx', b'del\x7f']:
        put(j('names') + b'/' + b, b + b'\n')
    put(j('modes', 'm000'), b'000\n', 0o000)
    put(j('modes', 'm400'), b'400\n', 0o400)
    put(j('modes', 'm755'), b'755\n', 0o755)
    put(j('modes', 'm4755'), b'4755\n', 0o4755)
    put(j('modes', 'm2755'), b'2755\n', 0o2755)
    put(j('modes', 'm6777'), b'6777\n', 0o6777)
    put(j('modes', 'm1755'), b'1755\n', 0o1755)
    os.makedirs(j('modes', 'sticky'))
    os.chmod(j('modes', 'sticky'), 0o1777)
    put(j('modes', 'ro', 'inside'), b'in a read-only folder\n')
    os.chmod(j('modes', 'ro'), 0o555)
    put(j('modes', 'closed', 'inside'), b'in a 0700 folder\n')
    os.chmod(j('modes', 'closed'), 0o700)
    os.makedirs(j('modes', 'shut'))
    os.chmod(j('modes', 'shut'), 0o000)
    put(j('times', 'epoch'), b'0\n', mtime=0)
    put(j('times', 'one'), b'1\n', mtime=1)
    put(j('times', '1969'), b'-1\n', mtime=-86400)
    put(j('times', '2038'), b'2038\n', mtime=2**31 + 5)
    put(j('times', '2100'), b'2100\n', mtime=4102444800)
    put(j('times', 'frac'), b'frac\n')
    os.utime(j('times', 'frac'), ns=(T * 10**9 + 123456789, T * 10**9 + 123456789))
    with open(j('sparse'), 'wb') as f:
        f.write(b'head')
        f.seek(3 << 20)
        f.write(b'middle')
        f.seek(8 << 20)
        f.write(b'tail')
    with open(j('sparse-hole-end'), 'wb') as f:
        f.write(b'x')
        f.truncate(1 << 20)
    put(j('links', 'target'), b'target\n')
    os.symlink(b'target', j('links', 'sym'))
    os.symlink(b'../many', j('links', 'symdir'))
    os.symlink(b'missing', j('links', 'dangling'))
    os.symlink(b'sym', j('links', 'chain'))
    os.symlink(b'.', j('links', 'self'))
    os.link(j('links', 'target'), j('links', 'hard'))
    os.link(j('links', 'target'), j('links', 'hard2'))
    os.link(j('modes', 'm755'), j('links', 'hard755'))
    for folder, dirs, files in os.walk(r, topdown=False):
        for n in files + dirs:
            p = os.path.join(folder, n)
            if n not in (b'epoch', b'one', b'1969', b'2038', b'2100', b'frac'):
                os.utime(p, (T, T), follow_symlinks=False)
        os.utime(folder, (T, T))


def tree_small(root, top=True):
    r = os.path.join(root, 'top') if top else root
    put(os.path.join(r, 'a.txt'), b'a\n')
    put(os.path.join(r, 'bin', 'run'), b'#!/bin/sh\n', 0o755)
    os.makedirs(os.path.join(r, 'empty'))
    os.symlink('a.txt', os.path.join(r, 'link'))
    for folder, dirs, files in os.walk(root, topdown=False):
        for n in files + dirs:
            os.utime(os.path.join(folder, n), (T, T), follow_symlinks=False)
        os.utime(folder, (T, T))


def tree_flat(root, count):
    os.makedirs(root)
    for i in range(count):
        with open(os.path.join(root, 'f%06d' % i), 'wb') as f:
            f.write(b'%d\n' % i)


# ---------------------------------------------------------------- archives

def compress(path, tool):
    """path.tar -> path.tar.EXT by the tool's CLI; returns the new path."""
    ext, argv = {'gz': ('gz', ['gzip', '-n', '-k', '-f']), 'xz': ('xz', ['xz', '-k', '-f', '-T1']),
                 'bz2': ('bz2', ['bzip2', '-k', '-f']), 'zst': ('zst', ['zstd', '-q', '-f', '--no-progress'])}[tool]
    sh(*argv, path)
    return path + '.' + ext


def make_corpus(work):
    src, out = os.path.join(work, 'src'), os.path.join(work, 'corpus')
    shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(src)
    os.makedirs(out)
    tree_rich(os.path.join(src, 'rich'))
    tree_small(os.path.join(src, 'small'))
    tree_small(os.path.join(src, 'flat'), top=False)
    tree_flat(os.path.join(src, 'wide'), 70000)
    cases = []  # (archive path, options dict)

    def add(name, **opts):
        cases.append((os.path.join(out, name), opts))

    rich, small = os.path.join(src, 'rich'), os.path.join(src, 'small')
    # GNU tar, each format that holds long names; with ./ and without
    for fmt in ['gnu', 'oldgnu', 'pax', 'posix']:
        p = os.path.join(out, 'gnutar-%s.tar' % fmt)
        sh('tar', '--format=' + fmt, '--sparse', '-cf', p, '-C', rich, '.', ok=(0, 2))
        add(os.path.basename(p))
        for c in ['gz', 'xz', 'bz2', 'zst']:
            add(os.path.basename(compress(p, c)))
    for fmt in ['ustar', 'v7']:
        sh('tar', '--format=' + fmt, '-cf', os.path.join(out, 'gnutar-%s.tar' % fmt), '-C', small, '.')
        add('gnutar-%s.tar' % fmt)
    sh('tar', '--format=gnu', '-czf', os.path.join(out, 'gnutar-top.tgz'), '-C', rich, 'top')
    add('gnutar-top.tgz')
    add('gnutar-top.tgz', strip=1)
    add('gnutar-pax.tar.gz', strip=1)  # ./top/x at 1 is top/x, as tar
    add('gnutar-pax.tar.gz', strip=2)
    sh('tar', '--format=gnu', '-cf', os.path.join(out, 'gnutar-nosparse.tar'), '-C', rich, 'top')
    add('gnutar-nosparse.tar')
    sh('tar', '--format=pax', '--sparse', '--sparse-version=1.0', '-cf', os.path.join(out, 'gnutar-sparse10.tar'), '-C', rich, 'top/sparse', 'top/sparse-hole-end')
    add('gnutar-sparse10.tar')
    sh('tar', '--format=pax', '--sparse', '--sparse-version=0.1', '-cf', os.path.join(out, 'gnutar-sparse01.tar'), '-C', rich, 'top/sparse', 'top/sparse-hole-end')
    add('gnutar-sparse01.tar')
    # bsdtar formats and its own compressors
    for fmt in ['pax', 'gnutar', 'paxr']:
        sh('bsdtar', '--format', fmt, '-cf', os.path.join(out, 'bsdtar-%s.tar' % fmt), '-C', rich, '.', ok=(0, 1))
        add('bsdtar-%s.tar' % fmt)
    sh('bsdtar', '--format', 'ustar', '-cf', os.path.join(out, 'bsdtar-ustar.tar'), '-C', small, '.')
    add('bsdtar-ustar.tar')
    for flag, ext in [('-z', 'tgz'), ('-J', 'tar.xz'), ('-j', 'tar.bz2'), ('--zstd', 'tar.zst')]:
        sh('bsdtar', flag, '-cf', os.path.join(out, 'bsdtar.' + ext), '-C', rich, 'top', ok=(0, 1))
        add('bsdtar.' + ext)
    sh('bsdtar', '--format', 'zip', '-cf', os.path.join(out, 'bsdtar.zip'), '-C', rich, 'top')
    add('bsdtar.zip')
    add('bsdtar.zip', strip=1)
    sh('bsdtar', '--format', 'zip', '--options', 'zip:compression=store', '-cf', os.path.join(out, 'bsdtar-stored.zip'), '-C', small, '.')
    add('bsdtar-stored.zip')
    # Python tarfile
    for fmt, name in [(tarfile.PAX_FORMAT, 'pax'), (tarfile.GNU_FORMAT, 'gnu')]:
        p = os.path.join(out, 'python-%s.tar' % name)
        with tarfile.open(p, 'w', format=fmt, encoding='utf-8', errors='surrogateescape') as t:
            t.add(rich, arcname='.')
        add(os.path.basename(p))
    with tarfile.open(os.path.join(out, 'python.tar.gz'), 'w:gz') as t:
        t.add(small, arcname='.')
    add('python.tar.gz')
    with tarfile.open(os.path.join(out, 'python-root.tar.gz'), 'w:gz') as t:  # arcname '' names the root '/'
        t.add(small, arcname='')
    add('python-root.tar.gz')
    # Info-ZIP
    for flags, name in [(['-r', '-y'], 'infozip.zip'), (['-r', '-y', '-0'], 'infozip-stored.zip'), (['-r', '-y', '-fz'], 'infozip-zip64.zip'),
                        (['-r', '-y', '-9'], 'infozip-9.zip')]:
        # Info-ZIP writes a Unicode Path field libarchive cannot read for a name with DEL (0x7f)
        sh('zip', '-q', *flags, os.path.join(out, name), 'top', '-x', 'top/names/del*', cwd=rich)
        add(name)
    with open(os.path.join(out, 'infozip-streamed.zip'), 'wb') as f:  # to a pipe: data descriptors
        files = sh('find', 'top', '-type', 'f', cwd=small, out=subprocess.PIPE).stdout
        p = subprocess.Popen(['zip', '-q', '-', '-@'], cwd=small, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        data = p.communicate(files)[0]
        f.write(data)
    add('infozip-streamed.zip')
    # Python zipfile: stored, deflated, forced zip64, written to a pipe (data descriptors), duplicates
    def pyzip(name, method, zip64=False, stream=False):
        buf = io.BytesIO()
        target = Unseekable(buf) if stream else buf
        with zipfile.ZipFile(target, 'w', method) as z:
            for folder, dirs, files in os.walk(small):
                for n in sorted(dirs + files):
                    p = os.path.join(folder, n)
                    arc = os.path.relpath(p, small)
                    if os.path.islink(p):
                        continue
                    if os.path.isdir(p):
                        z.writestr(zipfile.ZipInfo(arc + '/', (2020, 9, 13, 12, 26, 40)), b'')
                        continue
                    info = zipfile.ZipInfo(arc, (2020, 9, 13, 12, 26, 40))
                    info.external_attr = (os.stat(p).st_mode & 0xFFFF) << 16
                    info.compress_type = method
                    with open(p, 'rb') as fh:
                        data = fh.read()
                    with z.open(info, 'w', force_zip64=zip64) as w:
                        w.write(data)
        with open(os.path.join(out, name), 'wb') as f:
            f.write(buf.getvalue())
        add(name)
    pyzip('python-stored.zip', zipfile.ZIP_STORED)
    pyzip('python-deflated.zip', zipfile.ZIP_DEFLATED)
    pyzip('python-zip64.zip', zipfile.ZIP_DEFLATED, zip64=True)
    pyzip('python-stream.zip', zipfile.ZIP_DEFLATED, stream=True)
    pyzip('python-stream-stored.zip', zipfile.ZIP_STORED, stream=True)
    pyzip('python-stream-zip64.zip', zipfile.ZIP_DEFLATED, zip64=True, stream=True)
    with zipfile.ZipFile(os.path.join(out, 'python-many.zip'), 'w', zipfile.ZIP_STORED) as z:  # > 65,535 entries: zip64 end
        for i in range(70000):
            z.writestr(zipfile.ZipInfo('f%06d' % i, (2020, 9, 13, 12, 26, 40)), b'%d\n' % i)
    add('python-many.zip')
    sh('tar', '-czf', os.path.join(out, 'gnutar-wide.tar.gz'), '-C', os.path.join(src, 'wide'), '.')
    add('gnutar-wide.tar.gz')
    # duplicates: appended later versions, a file over an in-tree symlink, a folder over a file
    p = os.path.join(out, 'dups.tar')
    with tarfile.open(p, 'w', format=tarfile.PAX_FORMAT) as t:
        addmem(t, 'd/a', b'first\n')
        addmem(t, 'd/a', b'second\n')
        addmem(t, 'd/b', b'b\n')
        addmem(t, 'd/l', link='b')
        addmem(t, 'd/l', b'file over symlink\n')
        addmem(t, 'd/m', link='b')
        addmem(t, 'd/m', link='a')
        addmem(t, 'd/x', b'was a file\n')
        addmem(t, 'd/x', kind=tarfile.DIRTYPE)
        addmem(t, 'd/x/in', b'in\n')
        addmem(t, 'd/y', kind=tarfile.DIRTYPE, mode=0o700)
        addmem(t, 'd/y', kind=tarfile.DIRTYPE, mode=0o755)
    add('dups.tar')
    with zipfile.ZipFile(os.path.join(out, 'dups.zip'), 'w') as z:
        import warnings
        warnings.simplefilter('ignore')
        z.writestr(zipfile.ZipInfo('a', (2020, 1, 1, 0, 0, 0)), b'first\n')
        z.writestr(zipfile.ZipInfo('a', (2020, 1, 1, 0, 0, 0)), b'second\n')
    add('dups.zip')
    # hard link before its target's later version; link to a link
    with tarfile.open(os.path.join(out, 'hardlinks.tar'), 'w', format=tarfile.GNU_FORMAT) as t:
        addmem(t, 'h/t', b'target\n', mode=0o640)
        addmem(t, 'h/l1', link='h/t', kind=tarfile.LNKTYPE)
        addmem(t, 'h/s', link='t')
        addmem(t, 'h/l2', link='h/s', kind=tarfile.LNKTYPE)
        addmem(t, 'h/l3', link='h/l1', kind=tarfile.LNKTYPE)
    add('hardlinks.tar')
    # hostile: each must fail the task with nothing at to
    hostile = {
        'abs.tar': [('/tmp/flowrun-peer-abs', b'x')],
        'dotdot.tar': [('../escape', b'x')],
        'dotdot-mid.tar': [('a/../../escape', b'x')],
        'sym-out.tar': [('l', '/etc', 'sym')],
        'sym-up.tar': [('l', '../../..', 'sym')],
        'sym-then-write.tar': [('l', '/tmp', 'sym'), ('l/flowrun-peer-through', b'x')],
        'sym-in-then-write.tar': [('sub/f', b'f'), ('l', 'sub', 'sym'), ('l/g', b'through an in-tree link')],
        'hard-out.tar': [('h', '/etc/passwd', 'hard')],
        'hard-up.tar': [('h', '../outside', 'hard')],
        'chain-out.tar': [('a', 'b', 'sym'), ('b', '../..', 'sym')],
        'fifo.tar': [('p', None, 'fifo')],
        'chr.tar': [('c', None, 'chr')],
    }
    for name, entries in hostile.items():
        with tarfile.open(os.path.join(out, name), 'w', format=tarfile.PAX_FORMAT) as t:
            for e in entries:
                if len(e) == 2:
                    addmem(t, e[0], e[1])
                elif e[2] == 'sym':
                    addmem(t, e[0], link=e[1])
                elif e[2] == 'hard':
                    addmem(t, e[0], link=e[1], kind=tarfile.LNKTYPE)
                elif e[2] == 'fifo':
                    addmem(t, e[0], kind=tarfile.FIFOTYPE)
                else:
                    addmem(t, e[0], kind=tarfile.CHRTYPE)
        add(name, hostile=True)
    for name, arc in [('zip-dotdot.zip', '../escape'), ('zip-abs.zip', '/tmp/flowrun-peer-abs'), ('zip-backslash.zip', '..\\escape'),
                      ('zip-backslash-mid.zip', 'a\\..\\..\\escape')]:
        with zipfile.ZipFile(os.path.join(out, name), 'w') as z:
            z.writestr(zipfile.ZipInfo(arc, (2020, 1, 1, 0, 0, 0)), b'x')
        add(name, hostile=True)
    with zipfile.ZipFile(os.path.join(out, 'zip-symlink-out.zip'), 'w') as z:
        info = zipfile.ZipInfo('l', (2020, 1, 1, 0, 0, 0))
        info.create_system = 3
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(info, b'/etc')
        z.writestr(zipfile.ZipInfo('l/passwd', (2020, 1, 1, 0, 0, 0)), b'x')
    add('zip-symlink-out.zip', hostile=True)
    # single compressed files
    blob = random.Random(3).randbytes(300000) + b'\n' * 100000
    put(os.path.join(out, 'single', 'data.bin'), blob, 0o640, mtime=T)
    for c in ['gz', 'xz', 'bz2', 'zst']:
        p = compress(os.path.join(out, 'single', 'data.bin'), c)
        shutil.move(p, os.path.join(out, os.path.basename(p)))
        os.utime(os.path.join(out, os.path.basename(p)), (T, T))
        add(os.path.basename(p), single=c)
    with open(os.path.join(out, 'single', 'named.bin'), 'wb') as f:
        f.write(blob)
    sh('gzip', '-k', '-f', os.path.join(out, 'single', 'named.bin'))  # header holds the name
    shutil.move(os.path.join(out, 'single', 'named.bin.gz'), os.path.join(out, 'renamed.gz'))
    add('renamed.gz', single='gz')
    sh('gzip', '-k', '-f', os.path.join(out, 'gnutar-pax.tar'))
    return cases


class Unseekable(io.RawIOBase):
    def __init__(self, buf):
        self.buf = buf

    def writable(self):
        return True

    def write(self, b):
        return self.buf.write(b)


def addmem(t, name, data=None, link=None, kind=None, mode=0o644):
    info = tarfile.TarInfo(name)
    info.mtime = T
    info.mode = mode
    if kind is not None:
        info.type = kind
        if kind == tarfile.LNKTYPE:
            info.linkname = link
        if kind == tarfile.DIRTYPE:
            info.mode = mode | 0o111
        t.addfile(info)
    elif link is not None:
        info.type = tarfile.SYMTYPE
        info.linkname = link
        t.addfile(info)
    else:
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))


# ---------------------------------------------------------------- extraction

def flowrun(bin, archive, to, strip=0, extra='', timeout=600, kill_after=None):
    """Runs one decompress task in a workflow beside `to`; returns (exit status, output)."""
    folder = os.path.dirname(to)
    wf = os.path.join(folder, 'wf.yaml')
    with open(wf, 'w') as f:
        f.write('version: 1\ntasks:\n  x:\n    decompress: {from: %s, to: %s, strip_components: %d%s}\n' % (quote(archive), quote(to), strip, extra))
    done = subprocess.run([bin, 'run', wf, '--events', 'plain'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    return done.returncode, done.stdout.decode(errors='replace')


def quote(s):
    return "'" + s.replace("'", "''") + "'"


def peer(tool, archive, to, strip=0):
    os.makedirs(to)
    if tool == 'bsdtar':
        argv = ['bsdtar', '-xf', archive, '-C', to, '--no-same-owner'] + (['--strip-components', str(strip)] if strip else [])
    elif tool == 'gnutar':
        argv = ['tar', '-xf', archive, '-C', to, '--no-same-owner'] + (['--strip-components=%d' % strip] if strip else [])
    elif tool == 'unzip':
        argv = ['unzip', '-q', archive, '-d', to]
    else:
        name = os.path.basename(archive)
        shutil.copy2(archive, os.path.join(to, name))
        argv = {'gz': ['gzip', '-d', '-N'], 'xz': ['xz', '-d'], 'bz2': ['bzip2', '-d'], 'zst': ['zstd', '-q', '-d', '--rm']}[tool] + [os.path.join(to, name)]
    # flowrun reads names under a UTF-8 character type: the peers too
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ, LC_ALL='C.UTF-8'))
    return done.returncode, done.stderr.decode(errors='replace')


def snapshot(root):
    """bytes path -> (type, mode, digest or target, mtime, hard-link group) for everything below root."""
    seen, result = {}, {}
    rootb = os.fsencode(root)
    for folder, dirs, files in os.walk(rootb):
        for n in dirs + files:
            p = os.path.join(folder, n)
            st = os.lstat(p)
            rel = os.path.relpath(p, rootb)
            if stat.S_ISLNK(st.st_mode):
                what = ('link', os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                what = ('dir', None)
            elif stat.S_ISREG(st.st_mode):
                h = hashlib.sha256()
                with open(p, 'rb') as f:
                    for block in iter(lambda: f.read(1 << 20), b''):
                        h.update(block)
                what = ('file', h.hexdigest()[:16])
            else:
                what = ('other', st.st_mode)
            group = None
            if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                group = seen.setdefault((st.st_dev, st.st_ino), rel)
            mtime = None if stat.S_ISLNK(st.st_mode) else st.st_mtime_ns
            result[rel] = (what, stat.S_IMODE(st.st_mode) if not stat.S_ISLNK(st.st_mode) else None, mtime, group)
    return result


KNOWN = {}


def known(p, field, a, b):
    """Differences README.md and docs/actions.md decide, by class."""
    if field == 'mode' and a is not None and b is not None and a == b & ~0o6000:
        return 'setuid/setgid dropped'
    if field == 'mtime' and a and b and min(a, b) > (time.time() - 3600) * 1e9:
        return 'folder made at extraction (no entry)'
    return None


def differences(ours, theirs, limit=8):
    out = []
    for p in sorted(set(ours) | set(theirs)):
        a, b = ours.get(p), theirs.get(p)
        if a == b:
            continue
        shown = p.decode(errors='backslashreplace')
        if a is None or b is None:
            out.append('%s: flowrun %s, peer %s' % (shown, 'has it' if a else 'missing', 'has it' if b else 'missing'))
            continue
        fields = ['type/content', 'mode', 'mtime', 'hard-link group']
        for i, f in enumerate(fields):
            if a[i] != b[i]:
                va, vb = a[i], b[i]
                why = known(p, f, va, vb)
                if why:
                    KNOWN[why] = KNOWN.get(why, 0) + 1
                    continue
                if f == 'mode':
                    va, vb = oct(va), oct(vb)
                out.append('%s: %s flowrun %s, peer %s' % (shown, f, va, vb))
    return out[:limit] + (['... %d more' % (len(out) - limit)] if len(out) > limit else [])


def rm(path):
    if os.path.lexists(path):
        for folder, dirs, files in os.walk(path):  # 000 folders must be opened to be removed
            for d in dirs:
                try:
                    os.chmod(os.path.join(folder, d), 0o700)
                except OSError:
                    pass
        shutil.rmtree(path, ignore_errors=True)


def peers_for(archive, opts):
    if opts.get('single'):
        return [opts['single']]
    if archive.endswith('.zip'):
        return ['bsdtar'] + ([] if opts.get('strip') else ['unzip'])
    return ['bsdtar', 'gnutar']


def compare(bin, work, cases, report):
    n = 0
    start = int(os.environ.get('START', '0'))
    for i, (archive, opts) in enumerate(cases):
        if i < start:
            continue
        base = os.path.join(work, 'x', '%03d' % i)
        rm(base)
        os.makedirs(base)
        to = os.path.join(base, 'flowrun')
        status, output = flowrun(bin, archive, to, opts.get('strip', 0))
        label = os.path.basename(archive) + (' strip=%d' % opts['strip'] if opts.get('strip') else '')
        if opts.get('hostile'):
            n += 1
            leftovers = [e for e in os.listdir(base) if e not in ('wf.yaml', '.flowrun')]
            escaped = [p for p in ['/tmp/flowrun-peer-abs', '/tmp/flowrun-peer-through', os.path.join(work, 'escape'), os.path.join(work, 'x', 'escape'), os.path.join(base, 'escape')] if os.path.lexists(p)]
            if status == 0 or leftovers or escaped:
                report('HOSTILE %s: exit %d, left %s, escaped %s: %s' % (label, status, leftovers, escaped, output.strip().splitlines()[-2:]))
            for p in escaped:
                os.unlink(p)
            continue
        ours = snapshot(to) if status == 0 else None
        for tool in peers_for(archive, opts):
            n += 1
            ref = os.path.join(base, tool)
            pstatus, perr = peer(tool, archive, ref, opts.get('strip', 0))
            if ours is None:
                report('FAILS %s: flowrun exit %d, %s exit %d: %s' % (label, status, tool, pstatus, ' | '.join(output.strip().splitlines()[-3:])))
                break
            theirs = snapshot(ref)
            diff = differences(ours, theirs)
            if pstatus != 0:
                report('PEERFAIL %s: %s exit %d (%s); flowrun ok' % (label, tool, pstatus, perr.strip()[:200]))
            for d in diff:
                report('DIFF %s vs %s: %s' % (label, tool, d))
        if not os.environ.get('KEEP'):
            rm(base)
    return n


# ---------------------------------------------------------------- faults

def truth(bin, work, archive):
    """The tree flowrun makes of the sound archive."""
    to = os.path.join(work, 'truth', os.path.basename(archive), 'to')
    if not os.path.exists(to):
        os.makedirs(os.path.dirname(to), exist_ok=True)
        status, output = flowrun(bin, archive, to)
        assert status == 0, output
    return snapshot(to)


def faults(bin, work, cases, report, per_archive=24):
    rnd = random.Random(11)
    singles = {a: o['single'] for a, o in cases if o.get('single')}
    picks = [a for a, o in cases if not o.get('hostile') and not o.get('strip') and os.path.getsize(a) < int(os.environ.get('FAULT_MAX_BYTES', 40 << 20))
             and 'many' not in a and 'wide' not in a and os.environ.get('FAULT_ONLY', '') in a]
    n = 0
    for archive in picks:
        try:
            good = truth(bin, work, archive)
        except AssertionError:  # refused whole (a '/' entry): nothing to compare a fault with
            continue
        data = open(archive, 'rb').read()
        size = len(data)
        mutants = []
        for k in range(per_archive // 2):
            cut = rnd.randrange(1, size) if k > 1 else (size - 1 if k == 0 else size // 2)
            mutants.append(('cut@%d' % cut, data[:cut]))
        for k in range(per_archive // 2):
            at = rnd.randrange(size)
            b = bytearray(data)
            b[at] ^= 1 << rnd.randrange(8)
            mutants.append(('flip@%d' % at, bytes(b)))
        ext = archive[archive.index('.', len(os.path.dirname(archive)) + 1):]
        for label, blob in mutants:
            n += 1
            base = os.path.join(work, 'f', 'case')
            rm(base)
            os.makedirs(base)
            bad = os.path.join(base, 'archive' + ext)
            with open(bad, 'wb') as f:
                f.write(blob)
            to = os.path.join(base, 'to')
            status, output = flowrun(bin, bad, to)
            leftovers = [e for e in os.listdir(base) if e not in ('wf.yaml', '.flowrun', 'to', os.path.basename(bad))]
            if leftovers:
                report('LEFTOVER %s %s: %s' % (os.path.basename(archive), label, leftovers))
            if status != 0:
                if os.path.exists(to):
                    report('PARTIAL %s %s: failed but to exists' % (os.path.basename(archive), label))
                continue
            got = snapshot(to)
            if got == good:
                continue
            # plain tar and stored data have no checksum of their own: a green run must then match the peers
            ref = os.path.join(base, 'peer')
            pstatus, _ = peer(singles.get(archive) or peers_for(archive, {})[0], bad, ref)
            same_as_peer = pstatus == 0 and not differences(got, snapshot(ref))  # tar has no checksum over data
            kind = 'GREEN-WRONG' if not same_as_peer else 'green-as-peer'
            d = differences(got, good, limit=3)
            report('%s %s %s: exit 0, tree differs from the sound one%s: %s' % (kind, os.path.basename(archive), label, '' if same_as_peer else ' (peer exit %d)' % pstatus, '; '.join(d)))
    return n


def kills(bin, work, cases, report, rounds=int(os.environ.get('KILL_ROUNDS', 12))):
    """SIGKILL at random points of an extraction (into a missing `to`, then over an existing one),
    then a rerun: it must run (never 'up to date'), succeed and give the sound tree, sweeping what
    the killed run left."""
    rnd = random.Random(5)
    n = 0
    for archive in [a for a, o in cases if os.path.basename(a) in os.environ.get('KILL_ARCHIVES', 'gnutar-gnu.tar.gz,infozip.zip,gnutar-pax.tar.xz').split(',')]:
        good = truth(bin, work, archive)
        for k in range(rounds):
            n += 1
            base = os.path.join(work, 'k', 'case')
            rm(base)
            os.makedirs(base)
            to = os.path.join(base, 'to')
            merge = k % 2 == 1
            if merge:  # an older extraction of another archive is in `to`
                status, output = flowrun(bin, os.path.join(work, 'corpus', 'python.tar.gz'), to)
                assert status == 0, output
            wf = os.path.join(base, 'wf.yaml')
            with open(wf, 'w') as f:
                f.write('version: 1\ntasks:\n  x:\n    decompress: {from: %s, to: %s}\n' % (quote(archive), quote(to)))
            child = subprocess.Popen([bin, 'run', wf, '--events', 'plain'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.time() + 60
            while time.time() < deadline and child.poll() is None and not any('.flowrun-' in e for e in os.listdir(base)):
                time.sleep(0.001)
            time.sleep(rnd.uniform(0, 0.5))
            child.send_signal(signal.SIGKILL)
            child.wait()
            label = '%s kill %d%s' % (os.path.basename(archive), k, ' (merge)' if merge else '')
            if os.path.exists(to) and not merge:
                got = snapshot(to)
                if got != good:
                    report('KILLED-HALF %s: to exists and is not the whole tree: %s' % (label, '; '.join(differences(got, good, 3))))
            done = subprocess.run([bin, 'run', wf, '--events', 'plain'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            text = done.stdout.decode(errors='replace')
            got = snapshot(to) if os.path.exists(to) else {}
            missing = {p: v for p, v in good.items() if got.get(p) != v}
            left = [e for e in os.listdir(base) if '.flowrun-' in e]
            if done.returncode != 0 or missing or left:
                report('KILL-RERUN %s: exit %d, %s, %d paths not as extracted, left %s: %s' % (label, done.returncode, 'up to date' if 'up to date' in text else 'ran', len(missing), left, '; '.join(differences(got, good, 3))))
    return n


def reruns(bin, work, report):
    """Edits after a success: each must make the next run extract again, or be a documented no."""
    n = 0
    archive = os.path.join(work, 'corpus', 'gnutar-gnu.tar.gz')
    other = os.path.join(work, 'corpus', 'bsdtar.tgz')
    good = truth(bin, work, archive)
    edits = {
        'edit a file': lambda to, a: open(os.path.join(to, 'top/zero'), 'wb').write(b'edited'),
        'delete a file': lambda to, a: os.unlink(os.path.join(to, 'top/links/target')),
        'delete a folder': lambda to, a: rm(os.path.join(to, 'top/deep')),
        'retarget a symlink': lambda to, a: (os.unlink(os.path.join(to, 'top/links/sym')), os.symlink('zero', os.path.join(to, 'top/links/sym'))),
        'file for a symlink': lambda to, a: (os.unlink(os.path.join(to, 'top/links/sym')), open(os.path.join(to, 'top/links/sym'), 'w').write('target\n')),
        'same size, same mtime': lambda to, a: same_stamp_edit(os.path.join(to, 'top/links/target')),
        'archive replaced': lambda to, a: shutil.copy(other, a),
    }
    for label, edit in edits.items():
        n += 1
        base = os.path.join(work, 'r', 'case')
        rm(base)
        os.makedirs(base)
        a = os.path.join(base, 'a.tgz')
        shutil.copy2(archive, a)
        to = os.path.join(base, 'to')
        status, output = flowrun(bin, a, to)
        assert status == 0, output
        edit(to, a)
        status, output = flowrun(bin, a, to)
        ran = 'up to date' not in output
        if not ran or status != 0:
            report('RERUN %s: exit %d, %s' % (label, status, 'up to date' if not ran else output.strip().splitlines()[-1]))
        elif 'archive' not in label and without_folder_times(snapshot(to)) != without_folder_times(good):
            report('RERUN %s: ran, but to is not the archive\'s tree: %s' % (label, '; '.join(differences(snapshot(to), good, 3))))
    # a plain tar rewritten in place: same size, same mtime, same inode, other bytes
    n += 1
    base = os.path.join(work, 'r', 'case')
    rm(base)
    os.makedirs(base)
    a, to = os.path.join(base, 'a.tar'), os.path.join(base, 'to')
    with tarfile.open(a, 'w') as t:
        addmem(t, 'f', b'A' * 100)
    flowrun(bin, a, to)
    same_stamp_edit(a, at=open(a, 'rb').read().find(b'A' * 100))
    status, output = flowrun(bin, a, to)
    if status != 0 or open(os.path.join(to, 'f'), 'rb').read(1) != b'a':
        report('RERUN tar rewritten in place, same size and mtime: exit %d, %s' % (status, output.strip().splitlines()[-1]))
    return n


def without_folder_times(tree):
    """A merge leaves a folder that was already in `to` with the time the merge gave it, as bsdtar does."""
    return {p: (v[0], v[1], None if v[0][0] == 'dir' else v[2], v[3]) for p, v in tree.items()}


def same_stamp_edit(path, at=0):
    st = os.stat(path)
    with open(path, 'r+b') as f:
        f.seek(at, os.SEEK_END if at < 0 else os.SEEK_SET)
        b = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([b[0] ^ 0x20]))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--flowrun', required=True)
    ap.add_argument('--work', default='/tmp/decompress-peer')
    ap.add_argument('--only', default='compare,faults,kill,rerun')
    ap.add_argument('--faults-per-archive', type=int, default=24)
    args = ap.parse_args()
    bin = os.path.abspath(args.flowrun)
    os.umask(0o022)
    os.makedirs(args.work, exist_ok=True)
    lines = []

    def report(line):
        lines.append(line)
        print(line, flush=True)

    if os.environ.get('REUSE') and os.path.exists(os.path.join(args.work, 'cases.txt')):
        cases = eval(open(os.path.join(args.work, 'cases.txt')).read())
    else:
        cases = make_corpus(args.work)
        with open(os.path.join(args.work, 'cases.txt'), 'w') as f:
            f.write(repr(cases))
    archives = len({a for a, _ in cases})
    print('corpus: %d archives, %d cases' % (archives, len(cases)), flush=True)
    only = args.only.split(',')
    counts = {}
    if 'compare' in only:
        counts['compared'] = compare(bin, args.work, cases, report)
    if 'faults' in only:
        counts['faults'] = faults(bin, args.work, cases, report, args.faults_per_archive)
    if 'kill' in only:
        counts['killed'] = kills(bin, args.work, cases, report)
    if 'rerun' in only:
        counts['reruns'] = reruns(bin, args.work, report)
    print('known, decided differences: %s' % KNOWN)
    print('summary: %d archives, %d cases; %s; %d findings' % (archives, len(cases), ', '.join('%s %d' % kv for kv in counts.items()), len(lines)))


if __name__ == '__main__':
    main()
