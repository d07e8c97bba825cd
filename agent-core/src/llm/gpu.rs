//! Which GPUs this machine has, which GPU backends this build has, and
//! what to rebuild with when they do not meet.

use std::path::Path;

/// A GPU maker, as far as the backends care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuVendor {
    Nvidia,
    Amd,
    Intel,
    Apple,
    Other,
}

impl GpuVendor {
    fn from_pci_id(id: &str) -> GpuVendor {
        match id.trim().to_ascii_lowercase().as_str() {
            "0x10de" => GpuVendor::Nvidia,
            "0x1002" => GpuVendor::Amd,
            "0x8086" => GpuVendor::Intel,
            _ => GpuVendor::Other,
        }
    }

    /// The cargo features that can drive this GPU, best first.
    pub fn backends(self) -> &'static [&'static str] {
        match self {
            GpuVendor::Nvidia => &["cuda", "vulkan"],
            GpuVendor::Amd => &["rocm", "vulkan"],
            GpuVendor::Intel | GpuVendor::Other => &["vulkan"],
            GpuVendor::Apple => &["metal"],
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            GpuVendor::Nvidia => "NVIDIA",
            GpuVendor::Amd => "AMD",
            GpuVendor::Intel => "Intel",
            GpuVendor::Apple => "Apple",
            GpuVendor::Other => "other",
        }
    }
}

/// One GPU found on the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gpu {
    pub vendor: GpuVendor,
    /// The model when the driver says it, else the PCI ids.
    pub name: String,
}

/// The GPU backends this build can use (`cuda`, `vulkan`, `metal`,
/// `rocm`): compiled in, and for a portable build (`gpu-dl`) the GPU
/// modules found beside it (a `libggml-cuda.so` built on another machine);
/// empty for a CPU-only build.
pub fn compiled_backends() -> Vec<&'static str> {
    let mut backends = Vec::new();
    if cfg!(feature = "cuda") {
        backends.push("cuda");
    }
    if cfg!(feature = "rocm") {
        backends.push("rocm");
    }
    if cfg!(feature = "vulkan") {
        backends.push("vulkan");
    }
    if cfg!(feature = "metal") {
        backends.push("metal");
    }
    #[cfg(feature = "gpu-dl")]
    for backend in super::cpu_variant::gpu_modules_found() {
        if !backends.contains(&backend) {
            backends.push(backend);
        }
    }
    backends
}

/// The GPUs of this machine.
pub fn detect() -> Vec<Gpu> {
    let mut gpus = detect_in(Path::new("/"));
    if cfg!(target_os = "macos") && cfg!(target_arch = "aarch64") {
        gpus.push(Gpu {
            vendor: GpuVendor::Apple,
            name: "Apple silicon GPU".into(),
        });
    }
    gpus
}

/// The GPUs under a file-system root (`/` on a real machine): display
/// devices in `sys/class/drm`, with NVIDIA's model names from
/// `proc/driver/nvidia/gpus`.
pub fn detect_in(root: &Path) -> Vec<Gpu> {
    let mut nvidia_names: Vec<String> = read_dir_sorted(&root.join("proc/driver/nvidia/gpus"))
        .into_iter()
        .filter_map(|dir| std::fs::read_to_string(dir.join("information")).ok())
        .filter_map(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("Model:").map(|m| m.trim().to_string()))
        })
        .collect();
    nvidia_names.reverse();
    let mut gpus = Vec::new();
    for card in read_dir_sorted(&root.join("sys/class/drm")) {
        let name = card
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // `card0` is a device; `card0-HDMI-A-1` is one of its outputs.
        if !name.starts_with("card") || name.contains('-') {
            continue;
        }
        let device = card.join("device");
        let Ok(vendor_id) = std::fs::read_to_string(device.join("vendor")) else {
            continue;
        };
        let vendor = GpuVendor::from_pci_id(&vendor_id);
        let device_id = std::fs::read_to_string(device.join("device")).unwrap_or_default();
        let model = match vendor {
            GpuVendor::Nvidia => nvidia_names.pop(),
            _ => std::fs::read_to_string(device.join("product_name"))
                .ok()
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty()),
        };
        gpus.push(Gpu {
            vendor,
            name: model.unwrap_or_else(|| {
                format!(
                    "{} GPU ({}:{})",
                    vendor.as_str(),
                    vendor_id.trim(),
                    device_id.trim()
                )
            }),
        });
    }
    // NVIDIA's driver lists GPUs even without a display device.
    for name in nvidia_names.into_iter().rev() {
        gpus.push(Gpu {
            vendor: GpuVendor::Nvidia,
            name,
        });
    }
    gpus
}

fn read_dir_sorted(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    entries
}

/// When a GPU is present and this build has no backend that can drive it:
/// what to say, with the exact rebuild command.
pub fn backend_hint(gpus: &[Gpu], compiled: &[&str]) -> Option<String> {
    let unusable = gpus
        .iter()
        .find(|gpu| !gpu.vendor.backends().iter().any(|b| compiled.contains(b)))?;
    if gpus
        .iter()
        .any(|gpu| gpu.vendor.backends().iter().any(|b| compiled.contains(b)))
    {
        // Another GPU is usable; nothing to fix.
        return None;
    }
    let feature = unusable.vendor.backends()[0];
    let needs = match feature {
        "cuda" => " (needs the CUDA toolkit)",
        "rocm" => " (needs ROCm/HIP)",
        "vulkan" => " (needs Vulkan headers newer than 1.3.239, glslc and spirv-headers)",
        _ => "",
    };
    Some(format!(
        "{} is present but this build has no GPU backend for it, so models run on the CPU; rebuild with `cargo install --path nu_plugin_agent --features {feature}`{needs}",
        unusable.name
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, text: &str) {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn finds_gpus_in_sysfs_and_the_nvidia_driver() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        write(r, "sys/class/drm/card0/device/vendor", "0x10de\n");
        write(r, "sys/class/drm/card0/device/device", "0x2330\n");
        write(r, "sys/class/drm/card0-DP-1/status", "connected\n");
        write(r, "sys/class/drm/card1/device/vendor", "0x1002\n");
        write(r, "sys/class/drm/card1/device/device", "0x73bf\n");
        write(r, "sys/class/drm/renderD128/device/vendor", "0x1002\n");
        write(
            r,
            "proc/driver/nvidia/gpus/0000:01:00.0/information",
            "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ: 1\n",
        );
        let gpus = detect_in(r);
        assert_eq!(
            gpus,
            vec![
                Gpu {
                    vendor: GpuVendor::Nvidia,
                    name: "NVIDIA H100 80GB HBM3".into()
                },
                Gpu {
                    vendor: GpuVendor::Amd,
                    name: "AMD GPU (0x1002:0x73bf)".into()
                },
            ]
        );
        assert!(detect_in(&r.join("nothing")).is_empty());
    }

    #[test]
    fn a_gpu_without_a_backend_gets_the_rebuild_command() {
        let h100 = Gpu {
            vendor: GpuVendor::Nvidia,
            name: "NVIDIA H100".into(),
        };
        let hint = backend_hint(std::slice::from_ref(&h100), &[]).unwrap();
        assert!(hint.contains("--features cuda"), "{hint}");
        assert!(hint.contains("NVIDIA H100"));
        assert_eq!(backend_hint(std::slice::from_ref(&h100), &["cuda"]), None);
        assert_eq!(backend_hint(std::slice::from_ref(&h100), &["vulkan"]), None);
        assert_eq!(backend_hint(&[], &[]), None);
        let apple = Gpu {
            vendor: GpuVendor::Apple,
            name: "Apple silicon GPU".into(),
        };
        assert!(
            backend_hint(&[apple], &[])
                .unwrap()
                .contains("--features metal")
        );
    }
}
