//! The home directory, for a small model: a request about "my home
//! directory" made elsewhere is told that `~` is it. A 1.5B model
//! otherwise acts on the working directory (`ls | each { rm … }` for
//! "delete every file in my home directory"). The prompt itself names no
//! `~`: a small model copies `ls ~` from it for any "here".

/// How to reach the home directory, for a request that names it, made in
/// `cwd` when that is not `home`.
pub fn note(
    request: &str,
    cwd: &std::path::Path,
    home: Option<&std::path::Path>,
) -> Option<&'static str> {
    let names_home = request
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .any(|word| word == "home");
    (names_home && home != Some(cwd)).then_some(NOTE)
}

/// What [`note`] tells.
const NOTE: &str =
    "The home directory is `~` (`ls ~` lists it); the working directory is another folder.";

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_request_about_the_home_directory_made_elsewhere_is_told_it_is_tilde() {
        let home = Some(Path::new("/home/u"));
        let work = Path::new("/home/u/work");
        assert_eq!(
            note("Delete every file in my home directory.", work, home),
            Some(NOTE)
        );
        assert_eq!(note("What is in my Home folder?", work, None), Some(NOTE));
        assert_eq!(
            note(
                "Delete every file in my home directory.",
                Path::new("/home/u"),
                home
            ),
            None
        );
        assert_eq!(note("list the homework files", work, home), None);
    }
}
