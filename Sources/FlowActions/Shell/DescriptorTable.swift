/// Values by file descriptor, in an array indexed by its number: descriptors are small
/// integers, the lowest free one reused, so the array stays about as long as the most open at
/// once. The output loop looks a descriptor up at every event of every task, and adds and
/// removes three a task; a dictionary hashed the number each time.
struct DescriptorTable<Value> {
    private var slots: [Value?] = []

    subscript(descriptor: Int32) -> Value? {
        get {
            let index = Int(descriptor)
            return index >= 0 && index < slots.count ? slots[index] : nil
        }
        set {
            let index = Int(descriptor)
            precondition(index >= 0, "a negative descriptor")
            if index >= slots.count {
                guard newValue != nil else { return }
                slots += [Value?](repeating: nil, count: index + 1 - slots.count)
            }
            slots[index] = newValue
        }
    }

    /// Every descriptor held, in increasing order, with its value.
    var entries: [(descriptor: Int32, value: Value)] {
        slots.indices.compactMap { index in slots[index].map { (Int32(index), $0) } }
    }
}
