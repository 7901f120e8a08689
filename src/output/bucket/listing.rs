//! S3's XML answers: a page of `ListObjectsV2`, and the `Code` of an
//! error.

use aws_smithy_xml::decode::{Document, ScopedDecoder, try_data};

use crate::output::backend::Listed;

/// One page of a listing.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Page {
    /// Its objects (full keys).
    pub items: Vec<Listed>,
    /// The token of the next page, if the listing is truncated.
    pub next: Option<String>,
}

/// Reads a `ListBucketResult`.
pub fn parse(body: &[u8]) -> Result<Page, String> {
    let text = std::str::from_utf8(body).map_err(|_| "not UTF-8".to_owned())?;
    let mut doc = Document::new(text);
    let mut root = doc.root_element().map_err(|e| e.to_string())?;
    if !root.start_el().matches("ListBucketResult") {
        return Err(format!(
            "a {} element, not a listing",
            root.start_el().local()
        ));
    }
    let mut page = Page::default();
    let mut truncated = false;
    while let Some(mut tag) = root.next_tag() {
        let name = tag.start_el().local().to_owned();
        match name.as_str() {
            "Contents" => page.items.push(contents(&mut tag)?),
            "IsTruncated" => truncated = data(&mut tag)? == "true",
            "NextContinuationToken" => page.next = Some(data(&mut tag)?),
            _ => {}
        }
    }
    if !truncated {
        page.next = None;
    } else if page.next.is_none() {
        return Err("a truncated listing without a continuation token".to_owned());
    }
    Ok(page)
}

fn contents(tag: &mut ScopedDecoder<'_, '_>) -> Result<Listed, String> {
    let mut item = Listed {
        key: String::new(),
        etag: String::new(),
        size: 0,
    };
    while let Some(mut field) = tag.next_tag() {
        let name = field.start_el().local().to_owned();
        match name.as_str() {
            "Key" => item.key = data(&mut field)?,
            "ETag" => item.etag = data(&mut field)?,
            "Size" => {
                item.size = data(&mut field)?
                    .parse()
                    .map_err(|_| "a size that is not a number".to_owned())?;
            }
            _ => {}
        }
    }
    if item.key.is_empty() {
        return Err("an object without a key".to_owned());
    }
    Ok(item)
}

fn data(tag: &mut ScopedDecoder<'_, '_>) -> Result<String, String> {
    try_data(tag)
        .map(|d| d.into_owned())
        .map_err(|e| e.to_string())
}

/// The `Code` of an S3 error answer (`PreconditionFailed`, `SlowDown`,
/// `AccessDenied`...), if it has one: only letters and digits are kept, so
/// that no text of the server's reaches a terminal.
pub fn error_code(body: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(body).ok()?;
    let mut doc = Document::new(text);
    let mut root = doc.root_element().ok()?;
    while let Some(mut tag) = root.next_tag() {
        if tag.start_el().local() == "Code" {
            let code: String = data(&mut tag)
                .ok()?
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .take(64)
                .collect();
            return (!code.is_empty()).then_some(code);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_read_with_their_continuation() {
        let body = br#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name>
<Prefix>p/</Prefix><KeyCount>2</KeyCount><IsTruncated>true</IsTruncated>
<NextContinuationToken>tok&amp;1</NextContinuationToken>
<Contents><Key>p/captures/a.parquet</Key><ETag>&quot;abc&quot;</ETag><Size>12</Size></Contents>
<Contents><Key>p/_manifest/run.jsonl</Key><Size>3</Size><ETag>"d"</ETag></Contents>
</ListBucketResult>"#;
        let page = parse(body).unwrap();
        assert_eq!(page.next.as_deref(), Some("tok&1"));
        assert_eq!(page.items.len(), 2);
        assert_eq!(page.items[0].key, "p/captures/a.parquet");
        assert_eq!(page.items[0].etag, "\"abc\"");
        assert_eq!(page.items[0].size, 12);
        let last = br#"<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>"#;
        assert_eq!(parse(last).unwrap(), Page::default());
    }

    #[test]
    fn bad_answers_are_errors_not_panics() {
        for body in [
            &b""[..],
            b"<Error><Code>AccessDenied</Code></Error>",
            b"<ListBucketResult><Contents><Size>x</Size></Contents></ListBucketResult>",
            b"<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
            b"\xff\xfe",
            b"<ListBucketResult><Contents><Key>",
        ] {
            assert!(parse(body).is_err(), "{body:?}");
        }
        assert_eq!(
            error_code(b"<Error><Code>Slow Down!</Code></Error>").as_deref(),
            Some("SlowDown")
        );
        assert_eq!(error_code(b"not xml"), None);
    }
}
