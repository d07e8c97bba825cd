//! A terminal for interactive tests: a private tmux server running one
//! command, driven with `send-keys` and read with `capture-pane`.

use std::{path::Path, process::Command};

/// A tmux session on its own server socket; the server is killed on drop.
pub struct Tmux {
    socket: String,
    session: &'static str,
}

impl Tmux {
    /// Start `command` in `cwd` in a 160×40 terminal. `name` keeps the
    /// sockets of concurrent tests apart.
    pub fn start(name: &str, cwd: &Path, command: &str) -> Tmux {
        let tmux = Tmux {
            socket: format!("nu-agent-{name}-{}", std::process::id()),
            session: "nu",
        };
        let status = Command::new("tmux")
            .args(["-L", &tmux.socket, "new-session", "-d", "-s", tmux.session])
            .args(["-x", "160", "-y", "40", "-c"])
            .arg(cwd)
            .arg(command)
            .env("TERM", "xterm-256color")
            .status()
            .expect("tmux is installed (apt-get install tmux)");
        assert!(status.success());
        tmux
    }

    /// Type `keys` (tmux key names: `Enter`, `C-c`, or text).
    pub fn send(&self, keys: &[&str]) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", self.session])
            .args(keys)
            .status()
            .expect("tmux send-keys");
        assert!(status.success());
    }

    /// The pane with the last 500 lines of its scrollback.
    pub fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-S", "-500"])
            .args(["-t", self.session])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}
