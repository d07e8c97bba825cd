//! Binary data is described, never dumped.

use super::cell::format_size;

/// Text that is not valid UTF-8 (a non-UTF-8 file name in `^ls` output, a
/// Latin-1 log): the text with each invalid byte written as `\xNN`. `None`
/// when the bytes do not look like text.
pub fn escape_invalid_utf8(bytes: &[u8]) -> Option<String> {
    if detect_type(bytes) != MOSTLY_TEXT {
        return None;
    }
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02X}"));
        }
    }
    Some(out)
}

const MOSTLY_TEXT: &str = "mostly text (not valid UTF-8)";

/// `binary 1.2MB, PNG image` — size and a type detected from magic bytes.
pub fn describe_binary(bytes: &[u8]) -> String {
    let kind = detect_type(bytes);
    format!("binary {}, {kind}", format_size(bytes.len() as i64))
}

fn detect_type(bytes: &[u8]) -> &'static str {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "PNG image"),
        (b"\xff\xd8\xff", "JPEG image"),
        (b"GIF87a", "GIF image"),
        (b"GIF89a", "GIF image"),
        (b"%PDF-", "PDF document"),
        (b"PK\x03\x04", "ZIP archive (also docx/xlsx/jar)"),
        (b"\x1f\x8b", "gzip data"),
        (b"BZh", "bzip2 data"),
        (b"\xfd7zXZ\x00", "xz data"),
        (b"(\xb5/\xfd", "zstd data"),
        (b"7z\xbc\xaf\x27\x1c", "7-zip archive"),
        (b"\x7fELF", "ELF executable"),
        (b"\x00asm", "WebAssembly module"),
        (b"SQLite format 3\x00", "SQLite database"),
        (b"GGUF", "GGUF model"),
        (b"RIFF", "RIFF media (WAV/AVI/WebP)"),
        (b"OggS", "Ogg media"),
        (b"ID3", "MP3 audio"),
        (b"\xca\xfe\xba\xbe", "Mach-O or Java class"),
        (b"\xcf\xfa\xed\xfe", "Mach-O executable"),
        (b"MZ", "Windows executable"),
    ];
    if let Some((_, kind)) = MAGIC.iter().find(|(magic, _)| bytes.starts_with(magic)) {
        return kind;
    }
    if bytes.len() > 262 && &bytes[257..262] == b"ustar" {
        return "tar archive";
    }
    if bytes.is_empty() {
        return "empty";
    }
    if looks_like_text(&bytes[..bytes.len().min(4096)]) {
        MOSTLY_TEXT
    } else {
        "unknown data"
    }
}

/// Text with a few bad bytes: no NUL, and the bytes that are neither
/// printable UTF-8 (any script) nor whitespace are at most a tenth of
/// them, or at most 4 (one bad byte in a short `^ls` output).
fn looks_like_text(sample: &[u8]) -> bool {
    if sample.contains(&0) {
        return false;
    }
    let mut bad = 0;
    for chunk in sample.utf8_chunks() {
        bad += chunk.invalid().len();
        bad += chunk
            .valid()
            .chars()
            .filter(|c| c.is_control() && !c.is_ascii_whitespace())
            .map(char::len_utf8)
            .sum::<usize>();
    }
    bad * 10 <= sample.len() || bad <= 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_name_with_one_bad_byte_is_text() {
        // `^ls` of `café\xff.txt` and one more file: UTF-8 and a bad byte.
        let listing = b"caf\xc3\xa9\xff.txt\ngood.txt\n";
        assert_eq!(
            escape_invalid_utf8(listing).as_deref(),
            Some("caf\u{e9}\\xFF.txt\ngood.txt\n")
        );
        assert_eq!(escape_invalid_utf8(b"\xff\n").as_deref(), Some("\\xFF\n"));
        // Binary stays described.
        assert_eq!(escape_invalid_utf8(b"\x89PNG\r\n\x1a\n"), None);
        assert_eq!(escape_invalid_utf8(&[0u8, 1, 2, 3, 0xff, 0xfe]), None);
        assert_eq!(escape_invalid_utf8(&[0xffu8; 64]), None);
    }
}
