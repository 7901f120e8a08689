//! robostats' DuckDB extension: `robots_can_fetch(body, user_agent, url[,
//! policy]) -> BOOLEAN`, Google's verdict, as a native function of any
//! DuckDB from 1.2 (the command line, Python, R, Java, Node, DBeaver...),
//! with no Python in the process.
//!
//! ```text
//! cargo build --release          -> target/release/librobostats_duckdb.so (this crate's cdylib)
//! robostats duckdb-extension -o robostats.duckdb_extension
//!                                -> the library + DuckDB's metadata footer ([`footer`])
//! duckdb -unsigned -c "LOAD 'robostats.duckdb_extension'"
//!                                -> robostats_init_c_api (extension.rs) registers the function
//! ```
//!
//! The extension is of DuckDB's C API (ABI `C_STRUCT`): it calls DuckDB
//! only through the table of functions DuckDB hands over when it loads the
//! file, so it links no DuckDB and loads in any DuckDB from the C API's
//! version [`C_API_VERSION`] on. The file is not signed: DuckDB loads it
//! where unsigned extensions are allowed (`duckdb -unsigned`, or the
//! setting `allow_unsigned_extensions` when the database is opened).
//!
//! The rlib half holds what a program writing the file needs ([`footer`],
//! [`platform`], [`extension_file`]; the `robostats` command and the
//! Python package use it) and [`batch`], the verdicts of many rows at
//! once, which the Python package's `can_fetch_many` shares.

use std::ffi::CStr;

pub mod batch;
mod extension;

pub use extension::robostats_init_c_api;

/// The C API version the file is built for (the footer's and `get_api`'s):
/// DuckDB loads it if it is this version or newer.
pub const C_API_VERSION: &CStr = c"v1.2.0";

/// The extension file's name. DuckDB calls the entry point named after the
/// file (`robostats_init_c_api`), so the file keeps this name.
pub const FILE_NAME: &str = "robostats.duckdb_extension";

/// The name of this crate's library as cargo writes it beside the binaries
/// (`librobostats_duckdb.so` on Linux).
pub const LIBRARY_FILE_NAME: &str = if cfg!(target_os = "macos") {
    "librobostats_duckdb.dylib"
} else if cfg!(windows) {
    "robostats_duckdb.dll"
} else {
    "librobostats_duckdb.so"
};

/// DuckDB's name for the platform this crate is built for (`PRAGMA
/// platform` in a DuckDB of it): `linux_amd64`, `linux_arm64`,
/// `osx_arm64`, ... DuckDB loads an extension file only on the platform its
/// footer names.
pub fn platform() -> String {
    let os = if cfg!(target_os = "macos") {
        "osx"
    } else if cfg!(windows) {
        "windows"
    } else {
        std::env::consts::OS
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    let env = if cfg!(target_env = "musl") {
        "_musl"
    } else if cfg!(all(windows, target_env = "gnu")) {
        "_mingw"
    } else {
        ""
    };
    format!("{os}_{arch}{env}")
}

/// DuckDB's metadata footer of an extension file (512 bytes, at its end):
/// eight fields of 32 bytes, NUL-padded, last first (three unused, the ABI,
/// the extension's version, the C API version, the platform, the magic
/// "4"), then 256 bytes of signature (none: DuckDB loads the file only
/// where unsigned extensions are allowed). `platform` is DuckDB's
/// (`PRAGMA platform`, e.g. `linux_amd64`).
pub fn footer(platform: &str) -> Result<Vec<u8>, String> {
    let version = format!("v{}", env!("CARGO_PKG_VERSION"));
    let api = C_API_VERSION.to_str().expect("ASCII");
    let fields = ["", "", "", "C_STRUCT", &version, api, platform, "4"];
    let mut out = Vec::with_capacity(512);
    for field in fields {
        if field.len() > 32 || !field.is_ascii() || field.contains('\0') {
            return Err(format!("not a DuckDB platform: {field:?}"));
        }
        let start = out.len();
        out.extend_from_slice(field.as_bytes());
        out.resize(start + 32, 0);
    }
    out.resize(512, 0);
    Ok(out)
}

/// The extension file: `library` (this crate's cdylib as cargo built it,
/// or an extension file already: its footer is replaced) with the footer
/// for `platform`. Refuses bytes that are not a shared library holding the
/// entry point.
pub fn extension_file(library: &[u8], platform: &str) -> Result<Vec<u8>, String> {
    let shared_library = library.starts_with(b"\x7fELF")
        || library.starts_with(&[0xcf, 0xfa, 0xed, 0xfe])
        || library.starts_with(b"MZ");
    if !shared_library {
        return Err("not a shared library (ELF, Mach-O or PE)".to_owned());
    }
    let entry = b"robostats_init_c_api";
    if !library.windows(entry.len()).any(|w| w == entry) {
        return Err(
            "a shared library without robostats' entry point robostats_init_c_api".to_owned(),
        );
    }
    let body = if has_footer(library) {
        &library[..library.len() - 512]
    } else {
        library
    };
    let mut out = Vec::with_capacity(body.len() + 512);
    out.extend_from_slice(body);
    out.extend_from_slice(&footer(platform)?);
    Ok(out)
}

/// Whether `file` ends with DuckDB's footer: its magic field ("4") and a
/// C API version field (`v1.2.0`) where [`footer`] writes them, so that
/// the last bytes of a library (section headers) are not taken for one.
pub fn has_footer(file: &[u8]) -> bool {
    let Some(start) = file.len().checked_sub(512) else {
        return false;
    };
    let field = |i: usize| &file[start + i * 32..start + (i + 1) * 32];
    field(7).starts_with(b"4\0") && field(5).starts_with(b"v") && field(5).contains(&b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footer_fields_are_where_duckdb_reads_them() {
        let f = footer("linux_amd64").unwrap();
        assert_eq!(f.len(), 512);
        let field = |i: usize| {
            let raw = &f[i * 32..(i + 1) * 32];
            std::str::from_utf8(&raw[..raw.iter().position(|&b| b == 0).unwrap_or(32)]).unwrap()
        };
        assert_eq!(field(3), "C_STRUCT");
        assert_eq!(field(4), concat!("v", env!("CARGO_PKG_VERSION")));
        assert_eq!(field(5), "v1.2.0");
        assert_eq!(field(6), "linux_amd64");
        assert_eq!(field(7), "4");
        assert!(f[256..].iter().all(|&b| b == 0), "no signature");
        assert!(has_footer(&f));
        assert!(footer(&"x".repeat(33)).is_err());
        assert!(footer("linux\0amd64").is_err());
    }

    #[test]
    fn extension_file_checks_the_library() {
        let mut lib = b"\x7fELF....robostats_init_c_api....".to_vec();
        let file = extension_file(&lib, "linux_amd64").unwrap();
        assert_eq!(&file[..lib.len()], &lib[..]);
        assert!(has_footer(&file));
        let again = extension_file(&file, "linux_arm64").unwrap();
        assert_eq!(again.len(), file.len(), "the footer replaced");
        assert_eq!(&again[..lib.len()], &lib[..]);
        assert!(again.ends_with(&footer("linux_arm64").unwrap()));
        assert!(
            extension_file(b"hello", "linux_amd64")
                .unwrap_err()
                .contains("not a shared")
        );
        // a library whose last bytes hold a "4" where the magic is, and no
        // C API version: no footer
        let mut tail = lib.clone();
        tail.resize(1024, 0);
        let at = tail.len() - 512 + 7 * 32;
        tail[at] = b'4';
        assert!(!has_footer(&tail));
        assert_eq!(
            extension_file(&tail, "linux_amd64").unwrap().len(),
            1024 + 512
        );
        lib.truncate(8);
        assert!(
            extension_file(&lib, "linux_amd64")
                .unwrap_err()
                .contains("entry point")
        );
    }

    #[test]
    fn platform_is_duckdb_s_name() {
        let p = platform();
        assert!(p.contains('_') && !p.contains("x86_64"), "{p}");
    }
}
