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
