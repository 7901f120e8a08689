//! `http://` and `https://`: the URL itself, unsigned, redirects followed
//! (never from `https://` to `http://`). Every default of a [`Store`] is
//! plain HTTP's, so this store says nothing of its own.

use super::Store;

/// `http://` and `https://` URLs.
pub(super) struct Http;

impl Store for Http {}
