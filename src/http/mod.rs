//! Record -> HTTP response -> outcome classes and URL facts.
