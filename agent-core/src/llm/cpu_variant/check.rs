//! The check of one CPU variant, run in a child process: load the module
//! alone and multiply quantized weights by activations through each buffer
//! type it offers (its AMX or repacked layouts included), for one row (a
//! decode step) and for a batch (a prompt), against the same product in
//! plain `f32`. A module built wrong for this machine dies here (SIGILL) or
//! answers off, in the child, not in the agent.

use std::{
    ffi::{CStr, c_void},
    os::unix::ffi::OsStrExt,
    path::Path,
    ptr,
};

use llama_cpp_sys_2 as sys;

/// The line a passing check prints.
pub(crate) const PASSED: &str = "nu-agent cpu check: passed";
/// The start of the line a failing check prints, before the reason.
pub(crate) const FAILED: &str = "nu-agent cpu check failed:";

/// The exit status of a check that ran and found the variant wrong.
const EXIT_FAILED: i32 = 3;

/// Weight types the check multiplies with: the common GGUF quantizations
/// (each has its own kernels, AMX ones included) and `f16`.
const WEIGHT_TYPES: &[sys::ggml_type] = &[
    sys::GGML_TYPE_Q4_0,
    sys::GGML_TYPE_Q8_0,
    sys::GGML_TYPE_Q4_K,
    sys::GGML_TYPE_Q6_K,
    sys::GGML_TYPE_F16,
];
/// Inner dimension (a multiple of every block size), weight rows, and the
/// activation rows of a prompt batch.
const K: usize = 512;
const N: usize = 64;
const BATCH: usize = 32;
/// The largest relative error of a product that counts as right: 4-bit
/// weights of uniform noise give about 7%; a wrong kernel gives 100% or more.
const TOLERANCE: f64 = 0.25;

/// `<binary> --nu-agent-cpu-check <module>`: check one variant, print the
/// verdict, and return the exit status.
pub fn check_main(module: &Path) -> i32 {
    match check(module) {
        Ok(()) => {
            println!("{PASSED}");
            0
        }
        Err(reason) => {
            println!("{FAILED} {reason}");
            EXIT_FAILED
        }
    }
}

fn check(module: &Path) -> Result<(), String> {
    let path = std::ffi::CString::new(module.as_os_str().as_bytes())
        .map_err(|_| "the module path has a NUL byte".to_string())?;
    // SAFETY: a NUL-terminated path; ggml registers the backend it loads.
    let reg = unsafe { sys::ggml_backend_load(path.as_ptr()) };
    if reg.is_null() {
        return Err("llama.cpp could not load the module".into());
    }
    // SAFETY: `reg` is a registered backend; index 0 is the CPU device.
    let device = unsafe { sys::ggml_backend_reg_dev_get(reg, 0) };
    if device.is_null() {
        return Err("the module has no CPU device".into());
    }
    let mut buffer_types = extra_buffer_types(reg, device);
    // SAFETY: a valid device.
    buffer_types.push(unsafe { sys::ggml_backend_dev_buffer_type(device) });
    // SAFETY: a valid device; no parameters.
    let backend = unsafe { sys::ggml_backend_dev_init(device, ptr::null()) };
    if backend.is_null() {
        return Err("the CPU device did not start".into());
    }
    let weights = noise(N * K, 1);
    let cases: Vec<Case> = [1, BATCH]
        .into_iter()
        .map(|rows| {
            let activations = noise(rows * K, 1000 + rows as u64);
            let expected = reference(&weights, &activations, rows);
            Case {
                rows,
                activations,
                expected,
            }
        })
        .collect();
    let mut result = Ok(());
    'all: for &buffer_type in &buffer_types {
        for &weight_type in WEIGHT_TYPES {
            for case in &cases {
                if let Err(e) = multiply(device, backend, buffer_type, weight_type, &weights, case)
                {
                    result = Err(e);
                    break 'all;
                }
            }
        }
    }
    // SAFETY: started above, freed once.
    unsafe { sys::ggml_backend_free(backend) };
    result
}

/// The device's extra weight layouts (AMX, repacked), as llama.cpp puts
/// model weights in them.
fn extra_buffer_types(
    reg: sys::ggml_backend_reg_t,
    device: sys::ggml_backend_dev_t,
) -> Vec<sys::ggml_backend_buffer_type_t> {
    // SAFETY: looking up a documented entry point by a NUL-terminated name;
    // its signature is `ggml_backend_dev_get_extra_bufts_t`, and it returns
    // a NULL-terminated array owned by the backend.
    unsafe {
        let address = sys::ggml_backend_reg_get_proc_address(
            reg,
            c"ggml_backend_dev_get_extra_bufts".as_ptr(),
        );
        if address.is_null() {
            return Vec::new();
        }
        let get: unsafe extern "C" fn(
            sys::ggml_backend_dev_t,
        ) -> *mut sys::ggml_backend_buffer_type_t = std::mem::transmute(address);
        let mut list = get(device);
        let mut types = Vec::new();
        while !list.is_null() && !(*list).is_null() {
            types.push(*list);
            list = list.add(1);
        }
        types
    }
}

/// One product to check: `rows × K` activations and the `f32` answer.
struct Case {
    rows: usize,
    activations: Vec<f32>,
    expected: Vec<f32>,
}

/// Multiply the `N × K` weights, as `weight_type` stored in `buffer_type`,
/// by the case's activations, and compare with its `f32` answer. A layout
/// that does not take this type or product is passed over.
fn multiply(
    device: sys::ggml_backend_dev_t,
    backend: sys::ggml_backend_t,
    buffer_type: sys::ggml_backend_buffer_type_t,
    weight_type: sys::ggml_type,
    weights: &[f32],
    case: &Case,
) -> Result<(), String> {
    let Case {
        rows,
        activations,
        expected,
    } = case;
    let rows = *rows;
    let mut quantized = vec![0u8; N * K * 4];
    // SAFETY: `quantized` holds N rows of K values in any type (4 bytes per
    // value is the most, f32); the source holds N × K floats.
    let size = unsafe {
        sys::ggml_quantize_chunk(
            weight_type,
            weights.as_ptr(),
            quantized.as_mut_ptr().cast(),
            0,
            N as i64,
            K as i64,
            ptr::null(),
        )
    };
    let mut product = vec![0f32; N * rows];
    // SAFETY: every ggml object is made and freed here, in order; the
    // tensors' shapes match the buffers copied in and out.
    unsafe {
        let weight_ctx = context(2);
        let weight = sys::ggml_new_tensor_2d(weight_ctx, weight_type, K as i64, N as i64);
        let weight_buffer = sys::ggml_backend_alloc_ctx_tensors_from_buft(weight_ctx, buffer_type);
        if weight_buffer.is_null() {
            sys::ggml_free(weight_ctx);
            return Ok(());
        }
        let graph_ctx = context(8);
        let input = sys::ggml_new_tensor_2d(graph_ctx, sys::GGML_TYPE_F32, K as i64, rows as i64);
        let output = sys::ggml_mul_mat(graph_ctx, weight, input);
        let graph = sys::ggml_new_graph(graph_ctx);
        sys::ggml_build_forward_expand(graph, output);
        let supported =
            sys::ggml_backend_dev_supports_op(device, output) && size == sys::ggml_nbytes(weight);
        let mut status = sys::GGML_STATUS_SUCCESS;
        let allocator = sys::ggml_gallocr_new(sys::ggml_backend_dev_buffer_type(device));
        if supported && !sys::ggml_gallocr_alloc_graph(allocator, graph) {
            status = sys::GGML_STATUS_ALLOC_FAILED;
        } else if supported {
            sys::ggml_backend_tensor_set(weight, quantized.as_ptr().cast(), 0, size);
            sys::ggml_backend_tensor_set(
                input,
                activations.as_ptr().cast::<c_void>(),
                0,
                activations.len() * 4,
            );
            status = sys::ggml_backend_graph_compute(backend, graph);
            sys::ggml_backend_tensor_get(output, product.as_mut_ptr().cast(), 0, product.len() * 4);
        }
        sys::ggml_gallocr_free(allocator);
        sys::ggml_free(graph_ctx);
        sys::ggml_backend_buffer_free(weight_buffer);
        sys::ggml_free(weight_ctx);
        if !supported {
            return Ok(());
        }
        if status != sys::GGML_STATUS_SUCCESS {
            return Err(format!(
                "{} × f32 ({rows} rows, {} buffer) did not compute: {}",
                type_name(weight_type),
                buffer_name(buffer_type),
                CStr::from_ptr(sys::ggml_status_to_string(status)).to_string_lossy()
            ));
        }
    }
    let error = relative_error(&product, expected);
    if error > TOLERANCE {
        return Err(format!(
            "{} × f32 ({rows} rows, {} buffer) is off by {:.0}%",
            type_name(weight_type),
            buffer_name(buffer_type),
            error * 100.0
        ));
    }
    Ok(())
}

/// A ggml context for `tensors` tensors and a graph, without data.
///
/// # Safety
/// The caller frees it with `ggml_free`.
unsafe fn context(tensors: usize) -> *mut sys::ggml_context {
    // SAFETY: sizes from ggml's own overhead functions; no_alloc.
    unsafe {
        sys::ggml_init(sys::ggml_init_params {
            mem_size: tensors * sys::ggml_tensor_overhead() + sys::ggml_graph_overhead(),
            mem_buffer: ptr::null_mut(),
            no_alloc: true,
        })
    }
}

/// The product ggml computes: `out[r][n] = Σ_k weights[n][k] · input[r][k]`.
fn reference(weights: &[f32], input: &[f32], rows: usize) -> Vec<f32> {
    let mut out = vec![0f32; N * rows];
    for r in 0..rows {
        for n in 0..N {
            let w = &weights[n * K..(n + 1) * K];
            let x = &input[r * K..(r + 1) * K];
            out[r * N + n] = w.iter().zip(x).map(|(a, b)| a * b).sum();
        }
    }
    out
}

fn relative_error(got: &[f32], want: &[f32]) -> f64 {
    let diff: f64 = got
        .iter()
        .zip(want)
        .map(|(g, w)| f64::from(g - w).powi(2))
        .sum();
    let norm: f64 = want.iter().map(|w| f64::from(*w).powi(2)).sum();
    if got.iter().any(|g| !g.is_finite()) {
        return f64::INFINITY;
    }
    (diff / norm.max(f64::MIN_POSITIVE)).sqrt()
}

/// Uniform noise in [-1, 1), the same for the same seed.
fn noise(len: usize, seed: u64) -> Vec<f32> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn type_name(weight_type: sys::ggml_type) -> String {
    // SAFETY: ggml returns a static NUL-terminated name.
    unsafe { CStr::from_ptr(sys::ggml_type_name(weight_type)) }
        .to_string_lossy()
        .into_owned()
}

fn buffer_name(buffer_type: sys::ggml_backend_buffer_type_t) -> String {
    // SAFETY: ggml returns a NUL-terminated name owned by the buffer type.
    unsafe { CStr::from_ptr(sys::ggml_backend_buft_name(buffer_type)) }
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_product_and_its_error_measure() {
        let weights = noise(N * K, 1);
        let input = noise(2 * K, 2);
        let want = reference(&weights, &input, 2);
        assert_eq!(relative_error(&want, &want), 0.0);
        let zeros = vec![0f32; want.len()];
        assert!((relative_error(&zeros, &want) - 1.0).abs() < 1e-9);
        let mut nan = want.clone();
        nan[3] = f32::NAN;
        assert!(relative_error(&nan, &want).is_infinite());
        assert!(noise(1000, 7).iter().all(|v| (-1.0..1.0).contains(v)));
    }
}
