//! Text as it may stand in the report's SVG and HTML.

use std::fmt::Write;

use serde_json::Value;

/// Text made safe inside SVG and HTML, as text or an attribute's value:
/// markup escaped, tab, line feed and carriage return as spaces, and every
/// character that XML 1.0 forbids or HTML calls a parse error (see
/// [`is_text_char`]) as U+FFFD, the replacement character.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if !is_text_char(c) => out.push(char::REPLACEMENT_CHARACTER),
            c => out.push(c),
        }
    }
    out
}

/// Whether `c` may stand as it is in the text of an XML 1.0 document and
/// of an HTML page: not a control character (tab, line feed and carriage
/// return aside; XML forbids those of C0, HTML all of them) and not a
/// noncharacter (XML forbids U+FFFE and U+FFFF, HTML all 66). Surrogates
/// cannot be in a Rust string.
pub fn is_text_char(c: char) -> bool {
    let n = u32::from(c);
    let noncharacter = n & 0xFFFE == 0xFFFE || (0xFDD0..=0xFDEF).contains(&n);
    matches!(c, '\t' | '\n' | '\r') || !(c.is_control() || noncharacter)
}

/// `value` as JSON whose every character may stand in HTML as it is
/// ([`is_text_char`]): the others written as `\u` escapes, which read back
/// as the same value.
pub fn json_text(value: &Value) -> String {
    let json = value.to_string();
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if is_text_char(c) {
            out.push(c);
        } else {
            // Outside strings JSON is ASCII text: `c` is in a string.
            for unit in c.encode_utf16(&mut [0; 2]) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_holds_no_character_xml_or_html_forbids() {
        assert_eq!(escape("a\u{FFFF}b\u{FFFE}c"), "a\u{FFFD}b\u{FFFD}c");
        assert_eq!(
            escape("\u{0}\u{1}\u{1F}\u{7F}\u{85}\u{9F}"),
            "\u{FFFD}".repeat(6)
        );
        assert_eq!(
            escape("\u{FDD0}\u{FDEF}\u{1FFFE}\u{10FFFF}"),
            "\u{FFFD}".repeat(4)
        );
        assert_eq!(escape("a\tb\nc\rd"), "a b c d");
        // Kept: everything else, the replacement character itself and the
        // characters next to the forbidden ones.
        let kept = "\u{20}\u{A0}\u{D7FF}\u{E000}\u{FDCF}\u{FDF0}\u{FFFD}\u{10000}\u{1FFFD}é😀";
        assert_eq!(escape(kept), kept);
        for n in (0..=0x10FFFF).filter_map(char::from_u32) {
            let xml_forbids =
                matches!(u32::from(n), 0..=0x8 | 0xB | 0xC | 0xE..=0x1F | 0xFFFE | 0xFFFF);
            assert!(!(xml_forbids && is_text_char(n)), "{n:?}");
        }
    }

    #[test]
    fn exact_values_read_back_from_valid_text() {
        for text in [
            "a\u{FFFF}b",
            "\u{FFFE}\u{7F}\u{85}\u{1FFFF}\u{FDD0}",
            "\u{0}\t\n",
            "plain é",
        ] {
            let value = Value::String(text.to_owned());
            let json = json_text(&value);
            assert!(json.chars().all(is_text_char), "{json:?}");
            assert_eq!(serde_json::from_str::<Value>(&json).unwrap(), value);
        }
    }
}
