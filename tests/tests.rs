//! The integration tests, in one binary so the dependencies link once.

mod conformance;
mod robots_props;
