//! The integration tests, in one binary so the dependencies link once.

mod cli;
mod conformance;
mod robots_props;
