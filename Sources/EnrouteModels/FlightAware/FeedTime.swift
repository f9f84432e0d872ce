import Foundation

/// The feed's times, `yyyy-MM-ddTHH:mm:ssZ`, read and written without a formatter: a board
/// file holds twelve per flight, and a general ISO 8601 parse of each cost a third of a load.
enum FeedTime {
    /// The time `text` names, when it has exactly that form and a valid date and time of day
    /// (nil otherwise, for the general parser to try).
    static func date(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
                  bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z") else { return nil }
            func number(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for i in start..<(start + count) {
                    let digit = Int(bytes[i]) - 48
                    guard (0...9).contains(digit) else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
                  let minute = number(14, 2), let second = number(17, 2),
                  (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60, second < 60
            else { return nil }
            let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
            return Date(timeIntervalSince1970: Double(seconds))
        }
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Howard Hinnant's days-from-civil (proleptic Gregorian).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` for a time in seconds since 1970, UTC (proleptic Gregorian).
    static func text(secondsSince1970 seconds: Int) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            write(secondsSince1970: seconds, to: buffer.baseAddress!)
            return length
        }
    }

    /// The length of `text(secondsSince1970:)`.
    static let length = 20

    /// "00" to "99", each at twice its value.
    private static let digitPairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Writes `text(secondsSince1970:)`'s `length` bytes at `out`, without making the string.
    static func write(secondsSince1970 seconds: Int, to out: UnsafeMutablePointer<UInt8>) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Howard Hinnant's days-to-civil.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        // Each two-digit field copied from a table: a division and a remainder per digit, put
        // through nested functions, cost some 400 instructions a time.
        let pairs = digitPairs.utf8Start
        @inline(__always) func two(_ n: Int, at i: Int) {
            out[i] = pairs[2 * n]
            out[i + 1] = pairs[2 * n + 1]
        }
        two(year / 100, at: 0); two(year % 100, at: 2)
        out[4] = UInt8(ascii: "-"); two(month, at: 5)
        out[7] = UInt8(ascii: "-"); two(day, at: 8)
        out[10] = UInt8(ascii: "T"); two(secondOfDay / 3_600, at: 11)
        out[13] = UInt8(ascii: ":"); two(secondOfDay / 60 % 60, at: 14)
        out[16] = UInt8(ascii: ":"); two(secondOfDay % 60, at: 17)
        out[19] = UInt8(ascii: "Z")
    }
}
