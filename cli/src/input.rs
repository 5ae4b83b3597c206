//! Where TEXT comes from: the argument, or standard input for `-`.

use std::io::Read;

use crate::Error;

/// The text an argument stands for: standard input when it is `-`, else the
/// argument itself.
///
/// # Errors
/// [`Error::Input`] when standard input cannot be read or is not UTF-8.
pub fn text(arg: &str) -> Result<String, Error> {
    if arg == "-" {
        from_reader(std::io::stdin().lock())
    } else {
        Ok(arg.to_owned())
    }
}

/// The bytes of a file argument: standard input for `-`, else the file,
/// whole, not checked for UTF-8 (the caller names a bad line).
///
/// # Errors
/// [`Error::Input`] naming the file when it cannot be read.
pub fn bytes(arg: &str) -> Result<Vec<u8>, Error> {
    if arg == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| Error::Input(format!("cannot read standard input: {e}")))?;
        return Ok(bytes);
    }
    std::fs::read(arg).map_err(|e| Error::Input(format!("cannot read {arg}: {e}")))
}

/// All of `reader` as UTF-8, less one trailing line break (`\n` or `\r\n`),
/// so `echo TEXT | box-docs … -` sees what `box-docs … TEXT` sees.
///
/// # Errors
/// [`Error::Input`] on a read error or bytes that are not UTF-8.
pub fn from_reader(mut reader: impl Read) -> Result<String, Error> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Input(format!("cannot read standard input: {e}")))?;
    let mut text = String::from_utf8(bytes).map_err(|e| {
        Error::Input(format!(
            "standard input is not UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_trailing_line_break_is_removed() {
        assert_eq!(from_reader(&b"[CLAIM 7f]\n"[..]).unwrap(), "[CLAIM 7f]");
        assert_eq!(from_reader(&b"[CLAIM 7f]\r\n"[..]).unwrap(), "[CLAIM 7f]");
        assert_eq!(from_reader(&b"a\n\n"[..]).unwrap(), "a\n");
        assert_eq!(from_reader(&b"a\r"[..]).unwrap(), "a\r");
        assert_eq!(from_reader(&b""[..]).unwrap(), "");
    }

    #[test]
    fn invalid_utf8_is_an_input_error() {
        let Err(Error::Input(message)) = from_reader(&b"ok\xff"[..]) else {
            panic!("accepted invalid UTF-8")
        };
        assert_eq!(
            message,
            "standard input is not UTF-8 (invalid byte at offset 2)"
        );
    }
}
