/// Pairs of strings that are equal (canonically equivalent) but spelled with different bytes:
/// what string hashing and the unique index must treat as one key.
package enum EquivalentSpellings {
    package static let pairs: [(String, String)] = [
        ("5 K", "5 \u{212A}"),                        // KELVIN SIGN
        ("a;b", "a\u{037E}b"),                        // GREEK QUESTION MARK
        ("`x`", "\u{1FEF}x\u{1FEF}"),                 // GREEK VARIA
        ("KKKKKKKKKKKKKKKKK", "KKKKKKKK\u{212A}KKKKKKKK"),  // past the inline length, a word boundary inside
        ("caf\u{E9}", "cafe\u{301}"),                 // precomposed and decomposed
        ("\u{C5}ngstr\u{F6}m", "\u{212B}ngstro\u{308}m"),  // ANGSTROM SIGN, combining diaeresis
        ("\u{212A}\u{301}", "\u{1E30}"),              // Kelvin with an acute: not ASCII at all
    ]
}
