//! DuckDB's entry point and the function it registers: DuckDB calls
//! [`robostats_init_c_api`] when it loads the file, which registers
//! `robots_can_fetch`. DuckDB hands the function its chunks (2,048 rows)
//! from its own threads; the rows are read in DuckDB's vectors, in place,
//! and judged by [`crate::batch`] on the calling thread.
//!
//! DuckDB's functions are called through the table of pointers it hands
//! over at load time (`get_api`), never linked: only the entries named in
//! [`copy_api`] are read, all of the C API's first stable version (v1.2.0,
//! [`C_API_VERSION`]), so any DuckDB from 1.2 loads the file.

use std::ffi::{CStr, CString};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use libduckdb_sys as ffi;

use crate::batch::{Agents, Many, Rows, can_fetch_many, explain_many};
use robostats_rows::classify::crawler::Policy;

use crate::C_API_VERSION;

/// The functions of DuckDB's table that this module calls; the other
/// entries stay None.
static API: OnceLock<ffi::duckdb_ext_api_v1> = OnceLock::new();

/// Calls DuckDB's function `f` of the table `api`.
macro_rules! duck {
    ($api:expr, $f:ident($($arg:expr),* $(,)?)) => {
        ($api.$f.expect(concat!("DuckDB's C API has ", stringify!($f))))($($arg),*)
    };
}

/// The entries this module calls, copied out of DuckDB's table (which
/// lives only while the extension loads). Only these entries are read:
/// an older DuckDB's table is shorter than the bindings' struct.
///
/// # Safety
/// `table` points to DuckDB's `duckdb_ext_api_v1` of version
/// [`C_API_VERSION`] or newer.
unsafe fn copy_api(table: *const ffi::duckdb_ext_api_v1) -> Result<ffi::duckdb_ext_api_v1, String> {
    // SAFETY: every field is an Option of a function pointer: all zeros
    // is None for each.
    let mut api: ffi::duckdb_ext_api_v1 = unsafe { std::mem::zeroed() };
    macro_rules! copy {
        ($($f:ident),* $(,)?) => {$(
            // SAFETY: the field is in the table (the caller's promise),
            // read alone (no reference to the whole struct).
            api.$f = unsafe { std::ptr::addr_of!((*table).$f).read() };
            if api.$f.is_none() {
                return Err(format!("DuckDB's C API has no {}", stringify!($f)));
            }
        )*};
    }
    copy!(
        duckdb_connect,
        duckdb_disconnect,
        duckdb_create_logical_type,
        duckdb_destroy_logical_type,
        duckdb_create_scalar_function,
        duckdb_destroy_scalar_function,
        duckdb_scalar_function_set_name,
        duckdb_scalar_function_add_parameter,
        duckdb_scalar_function_set_return_type,
        duckdb_scalar_function_set_function,
        duckdb_scalar_function_set_error,
        duckdb_create_scalar_function_set,
        duckdb_destroy_scalar_function_set,
        duckdb_add_scalar_function_to_set,
        duckdb_register_scalar_function_set,
        duckdb_data_chunk_get_size,
        duckdb_data_chunk_get_vector,
        duckdb_vector_get_data,
        duckdb_vector_get_validity,
        duckdb_vector_ensure_validity_writable,
        duckdb_vector_assign_string_element_len,
    );
    Ok(api)
}

/// Why loading failed: DuckDB's own word (it has set the error), or ours.
enum Failure {
    Told,
    Message(String),
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Message(message)
    }
}

/// DuckDB's entry point of the extension `robostats` (the file's name):
/// registers `robots_can_fetch`. False, with an error set, if it cannot.
///
/// # Safety
/// Called by DuckDB's loader with its `info` and `access`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn robostats_init_c_api(
    info: ffi::duckdb_extension_info,
    access: *const ffi::duckdb_extension_access,
) -> bool {
    // SAFETY: as the caller's.
    let outcome = catch_unwind(|| unsafe { load(info, access) });
    let message = match outcome {
        Ok(Ok(())) => return true,
        Ok(Err(Failure::Told)) => return false,
        Ok(Err(Failure::Message(m))) => m,
        Err(panic) => format!("robostats: a bug: {}", panic_text(&*panic)),
    };
    // SAFETY: `access` is DuckDB's (checked non-null in `load`'s first
    // line, or the panic came from there: then it is null and skipped).
    if let Some(set_error) = unsafe { access.as_ref() }.and_then(|a| a.set_error) {
        let text = c_text(&message);
        // SAFETY: DuckDB's callback with its `info`; it copies the text.
        unsafe { set_error(info, text.as_ptr()) };
    }
    false
}

/// # Safety
/// As [`robostats_init_c_api`].
unsafe fn load(
    info: ffi::duckdb_extension_info,
    access: *const ffi::duckdb_extension_access,
) -> Result<(), Failure> {
    // SAFETY: DuckDB's loader hands over a valid `access`.
    let access = unsafe { access.as_ref() }.ok_or("robostats: no extension access".to_owned())?;
    let (Some(get_api), Some(get_database)) = (access.get_api, access.get_database) else {
        return Err("robostats: DuckDB handed over no get_api or get_database"
            .to_owned()
            .into());
    };
    // SAFETY: DuckDB's callback; a null table means it refused the
    // version and has said why.
    let table = unsafe { get_api(info, C_API_VERSION.as_ptr()) }.cast::<ffi::duckdb_ext_api_v1>();
    if table.is_null() {
        return Err(Failure::Told);
    }
    // SAFETY: DuckDB's table, of the version asked for or newer.
    let api = unsafe { copy_api(table) }?;
    let api = API.get_or_init(|| api);
    // One DuckDB library per process: a second one, with other functions,
    // would call the first's.
    let same = |a: &ffi::duckdb_ext_api_v1, b: &ffi::duckdb_ext_api_v1| {
        a.duckdb_connect.map(|f| f as usize) == b.duckdb_connect.map(|f| f as usize)
    };
    // SAFETY: as above (this second copy only compares).
    if !same(api, &unsafe { copy_api(table) }?) {
        return Err("robostats: loaded by two DuckDB libraries in one process"
            .to_owned()
            .into());
    }
    // SAFETY: DuckDB's callback; the database stays DuckDB's.
    let db = unsafe { get_database(info) };
    if db.is_null() {
        return Err(Failure::Told);
    }
    let mut con: ffi::duckdb_connection = std::ptr::null_mut();
    // SAFETY: a database DuckDB handed over, and a place for the connection.
    if unsafe { duck!(api, duckdb_connect(*db, &raw mut con)) } != ffi::DuckDBSuccess {
        return Err("robostats: no connection to the database loading it"
            .to_owned()
            .into());
    }
    // SAFETY: a connection just opened, closed right after.
    let registered = unsafe { register(api, con) };
    unsafe { duck!(api, duckdb_disconnect(&raw mut con)) };
    registered.map_err(Failure::Message)
}

/// Registers `robots_can_fetch` (BOOLEAN) and `robots_explain` (VARCHAR),
/// each with a BLOB and a VARCHAR body, with and without a policy.
///
/// # Safety
/// `con` is an open connection of the DuckDB whose table `api` is.
unsafe fn register(
    api: &ffi::duckdb_ext_api_v1,
    con: ffi::duckdb_connection,
) -> Result<(), String> {
    let functions: [(&CStr, ffi::DUCKDB_TYPE, [Callback; 2]); 2] = [
        (
            c"robots_can_fetch",
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_BOOLEAN,
            [robots_can_fetch, robots_can_fetch_policy],
        ),
        (
            c"robots_explain",
            ffi::DUCKDB_TYPE_DUCKDB_TYPE_VARCHAR,
            [robots_explain, robots_explain_policy],
        ),
    ];
    for (name, returns, callbacks) in functions {
        // SAFETY: as this function's.
        unsafe { register_set(api, con, name, returns, callbacks) }?;
    }
    Ok(())
}

/// Registers the function `name`: (body, user_agent, url) and (body,
/// user_agent, url, policy), each with a BLOB and a VARCHAR body.
///
/// # Safety
/// As [`register`].
unsafe fn register_set(
    api: &ffi::duckdb_ext_api_v1,
    con: ffi::duckdb_connection,
    name: &CStr,
    returns: ffi::DUCKDB_TYPE,
    callbacks: [Callback; 2],
) -> Result<(), String> {
    // SAFETY: DuckDB's constructors and setters on the objects they
    // return, each destroyed once at the end (DuckDB copies what it keeps).
    unsafe {
        let mut varchar = duck!(
            api,
            duckdb_create_logical_type(ffi::DUCKDB_TYPE_DUCKDB_TYPE_VARCHAR)
        );
        let mut blob = duck!(
            api,
            duckdb_create_logical_type(ffi::DUCKDB_TYPE_DUCKDB_TYPE_BLOB)
        );
        let mut result = duck!(api, duckdb_create_logical_type(returns));
        let mut set = duck!(api, duckdb_create_scalar_function_set(name.as_ptr()));
        let mut added = true;
        let overloads: [(&[_], Callback); 2] = [
            (&[varchar, varchar], callbacks[0]),
            (&[varchar, varchar, varchar], callbacks[1]),
        ];
        for body in [blob, varchar] {
            for (rest, callback) in &overloads {
                let mut f = duck!(api, duckdb_create_scalar_function());
                duck!(api, duckdb_scalar_function_set_name(f, name.as_ptr()));
                for &parameter in std::iter::once(&body).chain(rest.iter()) {
                    duck!(api, duckdb_scalar_function_add_parameter(f, parameter));
                }
                duck!(api, duckdb_scalar_function_set_return_type(f, result));
                duck!(api, duckdb_scalar_function_set_function(f, Some(*callback)));
                added &=
                    duck!(api, duckdb_add_scalar_function_to_set(set, f)) == ffi::DuckDBSuccess;
                duck!(api, duckdb_destroy_scalar_function(&raw mut f));
            }
        }
        let registered = added
            && duck!(api, duckdb_register_scalar_function_set(con, set)) == ffi::DuckDBSuccess;
        duck!(api, duckdb_destroy_scalar_function_set(&raw mut set));
        for t in [&raw mut varchar, &raw mut blob, &raw mut result] {
            duck!(api, duckdb_destroy_logical_type(t));
        }
        if registered {
            Ok(())
        } else {
            Err(format!(
                "robostats: DuckDB refused to register {}",
                name.to_string_lossy()
            ))
        }
    }
}

/// A VARCHAR or BLOB vector of a chunk, read in place: DuckDB's 16-byte
/// strings (the bytes inlined up to 12, else a pointer) and the validity
/// bitmap (none when every row is valid).
struct Strings<'a> {
    values: &'a [ffi::duckdb_string_t],
    validity: Option<&'a [u64]>,
}

// SAFETY: the vectors are only read, and only during the call that lent
// them (the pointers in the strings are DuckDB's, not owned here).
unsafe impl Sync for Strings<'_> {}

impl Strings<'_> {
    /// # Safety
    /// `vector` is a flat VARCHAR or BLOB vector of `rows` rows that
    /// outlives the result.
    unsafe fn of<'a>(
        api: &ffi::duckdb_ext_api_v1,
        vector: ffi::duckdb_vector,
        rows: usize,
    ) -> Strings<'a> {
        // SAFETY: a flat vector's data is `rows` strings; its validity,
        // when there is one, a bit per row.
        unsafe {
            let data = duck!(api, duckdb_vector_get_data(vector)).cast::<ffi::duckdb_string_t>();
            let validity = duck!(api, duckdb_vector_get_validity(vector));
            Strings {
                values: std::slice::from_raw_parts(data, rows),
                validity: (!validity.is_null())
                    .then(|| std::slice::from_raw_parts(validity, rows.div_ceil(64))),
            }
        }
    }
}

impl Rows for Strings<'_> {
    fn get(&self, i: usize) -> Option<&[u8]> {
        if let Some(bits) = self.validity
            && bits[i / 64] & (1 << (i % 64)) == 0
        {
            return None;
        }
        let s = &self.values[i];
        // SAFETY: DuckDB's string_t: the length first in both forms; up to
        // 12 bytes inlined in the struct, else a pointer to the bytes,
        // which live as long as the vector.
        unsafe {
            let len = s.value.inlined.length as usize;
            let bytes = if len <= 12 {
                s.value.inlined.inlined.as_ptr().cast::<u8>()
            } else {
                s.value.pointer.ptr.cast_const().cast::<u8>()
            };
            Some(std::slice::from_raw_parts(bytes, len))
        }
    }

    fn len(&self) -> usize {
        self.values.len()
    }
}

/// A scalar function's implementation, as DuckDB calls it.
type Callback =
    unsafe extern "C" fn(ffi::duckdb_function_info, ffi::duckdb_data_chunk, ffi::duckdb_vector);

/// Which function a chunk is for.
#[derive(Clone, Copy)]
enum Function {
    /// `robots_can_fetch`: a BOOLEAN per row.
    CanFetch,
    /// `robots_explain`: a VARCHAR per row.
    Explain,
}

impl Function {
    fn name(self) -> &'static str {
        match self {
            Function::CanFetch => "robots_can_fetch",
            Function::Explain => "robots_explain",
        }
    }
}

/// An extern "C" function of [`Callback`]'s type that DuckDB calls with
/// each chunk of the function: `input` holds the body, agent and URL
/// vectors (flat, and the policy's with `with_policy`), `output` takes a
/// value per row. An error (or a bug's panic) fails the query with its
/// message.
macro_rules! callback {
    ($(#[$doc:meta])* $name:ident, $function:expr, $with_policy:expr) => {
        $(#[$doc])*
        unsafe extern "C" fn $name(
            info: ffi::duckdb_function_info,
            input: ffi::duckdb_data_chunk,
            output: ffi::duckdb_vector,
        ) {
            // SAFETY: as DuckDB calls it.
            unsafe { call(info, input, output, $function, $with_policy) }
        }
    };
}

callback!(
    /// `robots_can_fetch(body, user_agent, url)`: a BOOLEAN per row.
    robots_can_fetch,
    Function::CanFetch,
    false
);
callback!(
    /// `robots_can_fetch(body, user_agent, url, policy)`.
    robots_can_fetch_policy,
    Function::CanFetch,
    true
);
callback!(
    /// `robots_explain(body, user_agent, url)`: a VARCHAR per row.
    robots_explain,
    Function::Explain,
    false
);
callback!(
    /// `robots_explain(body, user_agent, url, policy)`.
    robots_explain_policy,
    Function::Explain,
    true
);

/// # Safety
/// As [`robots_can_fetch`]'s arguments; `with_policy`: the chunk has the
/// policy's vector; `output` is of `function`'s type.
unsafe fn call(
    info: ffi::duckdb_function_info,
    input: ffi::duckdb_data_chunk,
    output: ffi::duckdb_vector,
    function: Function,
    with_policy: bool,
) {
    let Some(api) = API.get() else { return };
    // SAFETY: DuckDB's chunk and result vector of this call.
    let outcome = catch_unwind(AssertUnwindSafe(|| unsafe {
        judge(api, input, output, function, with_policy)
    }));
    let message = match outcome {
        Ok(Ok(())) => return,
        Ok(Err(m)) => format!("{}: {m}", function.name()),
        Err(panic) => format!("{}: a bug: {}", function.name(), panic_text(&*panic)),
    };
    let text = c_text(&message);
    // SAFETY: DuckDB copies the message.
    unsafe { duck!(api, duckdb_scalar_function_set_error(info, text.as_ptr())) };
}

/// # Safety
/// As [`call`]'s arguments.
unsafe fn judge(
    api: &ffi::duckdb_ext_api_v1,
    input: ffi::duckdb_data_chunk,
    output: ffi::duckdb_vector,
    function: Function,
    with_policy: bool,
) -> Result<(), String> {
    // SAFETY: DuckDB's chunk, of three string columns (the signature).
    let rows = usize::try_from(unsafe { duck!(api, duckdb_data_chunk_get_size(input)) })
        .map_err(|_| "a chunk too large".to_owned())?;
    if rows == 0 {
        return Ok(());
    }
    // SAFETY: the chunk's columns (DuckDB flattened them), read while
    // the chunk lives.
    let column = |k| unsafe {
        Strings::of(
            api,
            duck!(api, duckdb_data_chunk_get_vector(input, k)),
            rows,
        )
    };
    let (bodies, agents, urls) = (column(0), column(1), column(2));
    let policy = if with_policy {
        one_policy(&column(3))?
    } else {
        Policy::Google
    };
    // Google's 500 KiB, as can_fetch_many(size_limit=True); on this thread
    // alone (DuckDB runs other chunks on the other cores).
    let many = Many {
        bodies: &bodies,
        agents: Agents::Each(&agents),
        urls: &urls,
        size_limit: true,
        policy,
        parallel: false,
    };
    let valid: Vec<bool> = match function {
        Function::CanFetch => {
            let verdicts = can_fetch_many(many)?;
            // SAFETY: a flat BOOLEAN vector of at least `rows` rows, ours
            // to write.
            let values = unsafe {
                std::slice::from_raw_parts_mut(
                    duck!(api, duckdb_vector_get_data(output)).cast::<bool>(),
                    rows,
                )
            };
            for (value, verdict) in values.iter_mut().zip(&verdicts) {
                *value = verdict.unwrap_or(false);
            }
            verdicts.iter().map(Option::is_some).collect()
        }
        Function::Explain => {
            let reasons = explain_many(many)?;
            for (i, reason) in reasons.iter().enumerate() {
                let text = reason.as_deref().unwrap_or_default();
                // SAFETY: a flat VARCHAR vector of at least `rows` rows;
                // DuckDB copies the bytes.
                unsafe {
                    duck!(
                        api,
                        duckdb_vector_assign_string_element_len(
                            output,
                            i as u64,
                            text.as_ptr().cast(),
                            text.len() as u64
                        )
                    )
                };
            }
            reasons.iter().map(Option::is_some).collect()
        }
    };
    // SAFETY: `output`'s validity bitmap, a bit per row, ours to write.
    unsafe { set_validity(api, output, &valid) };
    Ok(())
}

/// Marks the rows of `output` valid or NULL.
///
/// # Safety
/// `output` is a flat vector of at least `valid.len()` rows, ours to
/// write.
unsafe fn set_validity(api: &ffi::duckdb_ext_api_v1, output: ffi::duckdb_vector, valid: &[bool]) {
    // SAFETY: as the caller's; the bitmap, made writable first (as the C
    // API asks before writing it), has a bit per row.
    unsafe {
        duck!(api, duckdb_vector_ensure_validity_writable(output));
        let validity = duck!(api, duckdb_vector_get_validity(output));
        if !validity.is_null() {
            let bits = std::slice::from_raw_parts_mut(validity, valid.len().div_ceil(64));
            for (i, &v) in valid.iter().enumerate() {
                if v {
                    bits[i / 64] |= 1 << (i % 64);
                } else {
                    bits[i / 64] &= !(1 << (i % 64));
                }
            }
        }
    }
}

/// The policy every row of `policies` names (a constant, as SQL passes
/// it), or why not.
fn one_policy(policies: &Strings<'_>) -> Result<Policy, String> {
    let mut found: Option<Policy> = None;
    for i in 0..policies.len() {
        let name = policies
            .get(i)
            .ok_or("the policy is NULL: give 'google' or 'library'")?;
        let name = std::str::from_utf8(name).map_err(|_| "the policy is not UTF-8".to_owned())?;
        let policy = Policy::parse(name)?;
        if found.is_some_and(|f| f != policy) {
            return Err("the policy differs between rows: give one, as a constant".to_owned());
        }
        found = Some(policy);
    }
    Ok(found.unwrap_or_default())
}

/// A panic's message.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic")
}

/// `text` as a C string (a NUL inside it cut there).
fn c_text(text: &str) -> CString {
    let end = text.find('\0').unwrap_or(text.len());
    CString::new(&text[..end]).unwrap_or_default()
}
