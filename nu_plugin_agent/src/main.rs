//! The plugin binary: `plugin add ~/.cargo/bin/nu_plugin_agent`.

fn main() {
    nu_plugin::serve_plugin(
        &nu_plugin_agent::AgentPlugin::new(),
        nu_plugin::MsgPackSerializer,
    );
}
