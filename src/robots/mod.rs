//! robots.txt parsing and matching, exactly as Google's reference library.
