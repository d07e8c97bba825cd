# nu_plugin_agent helpers for your nu config.
#
# Load it from your config (after `plugin add` / `plugin use agent`):
#
#     use /path/to/nu_plugin_agent/nu-scripts/agent.nu
#
# It binds Alt+S: what you typed on the command line becomes the request for
# `agent suggest`, and the line is replaced by the suggested pipeline, to
# edit and run yourself (nothing runs before you press Enter). Another key:
#
#     use agent.nu; $env.config.keybindings = ($env.config.keybindings | append (agent keybinding --modifier control --key char_g))

# The keybinding record for `agent suggest` on the command line.
export def keybinding [
    --modifier: string = "alt"   # alt, control, shift, control_alt, ...
    --key: string = "char_s"     # a reedline keycode, e.g. char_s, f2
]: nothing -> record {
    {
        name: agent_suggest
        modifier: $modifier
        keycode: $key
        mode: [emacs vi_insert vi_normal]
        event: {
            send: executehostcommand
            cmd: "agent suggest-line"
        }
    }
}

# Replace the command line with `agent suggest`'s pipeline for what is on
# it; on an empty line or an error, the line is left as it was. A line
# says it is thinking (a local model takes a while), and every message
# starts on a line of its own, below the prompt, so the prompt's redraw
# does not cover it.
export def suggest-line []: nothing -> nothing {
    let request = (commandline | str trim)
    if ($request | is-empty) {
        print -e "\nagent suggest: type a request on the command line first"
        return
    }
    print -e $"\nagent suggest: thinking about \"($request)\"…"
    let suggestion = try { agent suggest $request } catch { |err|
        print -e $"agent suggest: ($err.msg)"
        return
    }
    if $suggestion.verdict != "allow" {
        print -e $"agent suggest: your policy says ($suggestion.verdict): ($suggestion.reason)"
    }
    commandline edit --replace $suggestion.pipeline
}

export-env {
    $env.config.keybindings = ($env.config.keybindings? | default [] | where name != agent_suggest | append (keybinding))
}
