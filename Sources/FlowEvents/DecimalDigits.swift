/// An integer's decimal digits as bytes, without making a `String` of it: for the writers that
/// append numbers by the hundred thousand (the plan, the event stream).
package enum DecimalDigits {
    /// Calls `body` with the digits of `value` (and its sign), in a buffer on the stack.
    package static func withBytes<Result>(of value: Int64, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        // Digits from the last, into the end of a buffer that holds Int64.min; the magnitude as
        // UInt64, so that Int64.min does not overflow.
        withUnsafeTemporaryAllocation(byteCount: 20, alignment: 1) { digits in
            var start = digits.count
            var rest = value.magnitude
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            return body(UnsafeRawBufferPointer(rebasing: digits[start...]))
        }
    }
}
