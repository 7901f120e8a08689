//! Text that robostats did not write itself (a lock file's or a
//! manifest's contents, file names in the output directory, a paths
//! file's lines, a server's words), made safe to print on a terminal.
//!
//! Anyone who can write a file there, or answer a request, chooses that
//! text: an escape sequence in it would reach the terminal (colours, a
//! moved cursor, a changed window title, on some terminals worse), a
//! carriage return or a backspace would overwrite what robostats said,
//! and a bidirectional override would show the words in another order
//! than they are. [`escaped`] writes every such character as an escape
//! instead (`\x1b`, `\r`, `\u{202e}`); everything else is kept as it is.

use std::borrow::Cow;

/// `text` with every character that could act on a terminal, or hide
/// what the text says, written as an escape: the control characters (C0,
/// DEL and C1: `\t`, `\n`, `\r`, else `\xNN`), the bidirectional marks,
/// embeddings, overrides and isolates, and the line and paragraph
/// separators (`\u{NNNN}`). Text without any is returned as it is.
pub fn escaped(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// As [`escaped`], but line feeds are kept: for a message of several
/// lines of robostats' own, each of which may hold text from elsewhere.
pub fn escaped_lines(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

fn escape(text: &str, keep_lines: bool) -> Cow<'_, str> {
    let acts = |c: char| needs_escape(c) && !(keep_lines && c == '\n');
    if !text.chars().any(acts) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !acts(c) {
            out.push(c);
            continue;
        }
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// Whether `c` is written as an escape.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            // Arabic letter mark; left-to-right and right-to-left marks
            '\u{061c}' | '\u{200e}' | '\u{200f}'
            // embeddings and overrides (LRE, RLE, PDF, LRO, RLO)
            | '\u{202a}'..='\u{202e}'
            // isolates (LRI, RLI, FSI, PDI)
            | '\u{2066}'..='\u{2069}'
            // line and paragraph separators
            | '\u{2028}' | '\u{2029}'
        )
}

/// A URL as it may be shown: without user name, password, query or
/// fragment (a signature may be in them); text that is not a URL is
/// shown up to its first `?` or `#`, without what is before an `@` of its
/// authority.
pub fn shown(text: &str) -> String {
    let text = text.split(['?', '#']).next().unwrap_or("");
    match text.split_once("://") {
        Some((scheme, rest)) => {
            let end = rest.find('/').unwrap_or(rest.len());
            let (authority, path) = rest.split_at(end);
            let host = authority
                .rsplit_once('@')
                .map_or(authority, |(_, host)| host);
            format!("{scheme}://{host}{path}")
        }
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_acts_on_a_terminal_is_escaped_and_nothing_else() {
        assert!(matches!(escaped("plain text, é, 日本"), Cow::Borrowed(_)));
        assert_eq!(escaped("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
        assert_eq!(escaped("a\rb\tc\nd\x07\x7f"), "a\\rb\\tc\\nd\\x07\\x7f");
        // C1: the one-character CSI, and NEL
        assert_eq!(escaped("\u{9b}31m\u{85}"), "\\x9b31m\\x85");
        assert_eq!(
            escaped("abc\u{202e}fdp.exe\u{2066}\u{2028}"),
            "abc\\u{202e}fdp.exe\\u{2066}\\u{2028}"
        );
        assert_eq!(
            escaped_lines("one\ntwo\x1b]0;x\x07"),
            "one\ntwo\\x1b]0;x\\x07"
        );
        // a backslash is kept: the text is shown, not decoded again
        assert_eq!(escaped("C:\\x1b"), "C:\\x1b");
    }
}
