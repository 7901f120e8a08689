//! Okabe & Ito's palette: black, orange, sky blue, bluish green, yellow,
//! blue, vermillion, reddish purple, and a grey.

/// Vermillion.
pub const VERMILLION: &str = "#D55E00";
/// Orange.
pub const ORANGE: &str = "#E69F00";
/// Sky blue.
pub const SKY: &str = "#56B4E9";
/// Bluish green.
pub const GREEN: &str = "#009E73";
/// Yellow.
pub const YELLOW: &str = "#F0E442";
/// Blue.
pub const BLUE: &str = "#0072B2";
/// Reddish purple.
pub const PURPLE: &str = "#CC79A7";
/// Grey.
pub const GREY: &str = "#999999";
/// Dark grey.
pub const DARK: &str = "#555555";
/// Every colour above in the order a series takes them.
pub const SERIES: [&str; 8] = [BLUE, VERMILLION, GREEN, ORANGE, PURPLE, SKY, DARK, YELLOW];

/// The text colour readable on `fill` (`#RRGGBB`): white on a dark fill,
/// the ink on a light one (by the fill's relative luminance, WCAG's).
pub fn text_on(fill: &str) -> &'static str {
    let channel = |i: usize| {
        let c =
            f64::from(u8::from_str_radix(fill.get(i..i + 2).unwrap_or("ff"), 16).unwrap_or(255))
                / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
    // White and the ink contrast equally at 0.21; vermillion (0.22) takes
    // white, as the palette's dark colours do.
    if luminance < 0.23 {
        "#FFFFFF"
    } else {
        super::INK
    }
}
