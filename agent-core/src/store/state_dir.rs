//! Where the agent keeps its files.

use std::{
    ffi::OsString,
    path::{Path, PathBuf},
};

use super::StoreError;

/// The agent's state dir, created (mode 0700) if missing:
/// `$NU_AGENT_STATE_DIR`, else `$XDG_STATE_HOME/nu-agent`, else
/// `$HOME/.local/state/nu-agent`. Empty or relative `XDG_STATE_HOME` and
/// `HOME` are ignored, as the XDG spec asks.
pub fn state_dir() -> Result<PathBuf, StoreError> {
    let dir = resolve(|name| std::env::var_os(name))?;
    create_private_dir(&dir)?;
    Ok(dir)
}

/// The state dir named by the variables `lookup` returns.
fn resolve(lookup: impl Fn(&str) -> Option<OsString>) -> Result<PathBuf, StoreError> {
    let set = |name: &str| {
        lookup(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = set("NU_AGENT_STATE_DIR") {
        return if dir.is_absolute() {
            Ok(dir)
        } else {
            Err(StoreError::RelativeStateDir(dir))
        };
    }
    if let Some(state_home) = set("XDG_STATE_HOME").filter(|dir| dir.is_absolute()) {
        return Ok(state_home.join("nu-agent"));
    }
    set("HOME")
        .filter(|home| home.is_absolute())
        .map(|home| home.join(".local").join("state").join("nu-agent"))
        .ok_or(StoreError::NoStateDir)
}

/// Create `dir` and any missing parents, readable by the owner only.
/// An existing directory is left as it is.
pub(crate) fn create_private_dir(dir: &Path) -> Result<(), StoreError> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(|source| StoreError::CreateDir {
        path: dir.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve_with(vars: &[(&str, &str)]) -> Result<PathBuf, StoreError> {
        resolve(|name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        })
    }

    #[test]
    fn precedence() {
        let all = [
            ("NU_AGENT_STATE_DIR", "/custom"),
            ("XDG_STATE_HOME", "/xdg"),
            ("HOME", "/home/u"),
        ];
        assert_eq!(resolve_with(&all).unwrap(), PathBuf::from("/custom"));
        assert_eq!(
            resolve_with(&all[1..]).unwrap(),
            PathBuf::from("/xdg/nu-agent")
        );
        assert_eq!(
            resolve_with(&all[2..]).unwrap(),
            PathBuf::from("/home/u/.local/state/nu-agent")
        );
        assert_eq!(
            resolve_with(&[("XDG_STATE_HOME", "rel"), ("HOME", "/h")]).unwrap(),
            PathBuf::from("/h/.local/state/nu-agent")
        );
        assert!(matches!(
            resolve_with(&[("NU_AGENT_STATE_DIR", "rel")]),
            Err(StoreError::RelativeStateDir(_))
        ));
        assert!(matches!(
            resolve_with(&[("HOME", "")]),
            Err(StoreError::NoStateDir)
        ));
    }

    #[cfg(unix)]
    #[test]
    fn created_private() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a").join("nu-agent");
        create_private_dir(&dir).unwrap();
        create_private_dir(&dir).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
}
