//! A GGUF header reader in plain Rust: the magic and version, every
//! metadata key and value, and the tensor table, read without loading
//! llama.cpp or the weights. Every length and count in the file is checked
//! against what is left of the file and against fixed limits before
//! anything is allocated, so a cut, corrupt or hostile file gives an error
//! that names the file and the byte, never a panic or a huge allocation.
//! Big arrays (a tokenizer's vocabulary, its merges) are streamed past and
//! not kept.

use std::{
    collections::{BTreeMap, HashSet},
    fmt,
    fs::File,
    io::{BufReader, Read},
    path::{Path, PathBuf},
};

/// Longest metadata key (the GGUF specification's limit).
const MAX_KEY_BYTES: u64 = 65_535;
/// Longest string value kept in memory (chat templates are a few kB).
const MAX_STRING_BYTES: u64 = 16 << 20;
/// Longest tensor name (llama.cpp itself allows 63 bytes).
const MAX_TENSOR_NAME_BYTES: u64 = 1024;
/// Most metadata keys in one file (real ones have about fifty).
const MAX_KEYS: u64 = 65_536;
/// Most tensors in one file (the largest models have a few thousand).
const MAX_TENSORS: u64 = 65_536;
/// Most dimensions of one tensor (ggml's `GGML_MAX_DIMS`).
const MAX_DIMS: u32 = 4;
/// Arrays up to this length are kept; longer ones are only counted.
const KEPT_ARRAY_ITEMS: u64 = 1024;
/// Arrays of arrays are allowed; deeper nesting is not.
const MAX_ARRAY_DEPTH: u8 = 2;
/// Memory that kept keys, values and tensor names may take, in all.
const MEMORY_BUDGET: u64 = 64 << 20;
/// The token whose presence says a model was trained on Hermes-style
/// `<tool_call>` tags.
const TOOL_CALL_TOKEN: &[u8] = b"<tool_call>";
/// The metadata key holding a model's vocabulary.
const TOKENS_KEY: &str = "tokenizer.ggml.tokens";

/// Why a GGUF file could not be read. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum GgufError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a GGUF file (it starts with {found}, not \"GGUF\")", path.display())]
    NotGguf { path: PathBuf, found: String },
    #[error(
        "{}: GGUF version {version} is not supported (this reader knows versions 2 and 3)",
        path.display()
    )]
    UnsupportedVersion { path: PathBuf, version: u32 },
    #[error("{}: big-endian GGUF files are not supported", path.display())]
    BigEndian { path: PathBuf },
    #[error("{}: truncated at byte {size} ({what} at byte {offset} needs {needed} bytes)", path.display())]
    Truncated {
        path: PathBuf,
        /// The file's length: where it stops.
        size: u64,
        what: String,
        offset: u64,
        needed: u64,
    },
    #[error(
        "{}: {what} at byte {offset} runs past the end of the file ({}); the file is cut short or corrupt",
        path.display(),
        human_bytes(*size)
    )]
    PastEnd {
        path: PathBuf,
        /// What the file claims, e.g. "metadata string of 4.3 GB".
        what: String,
        offset: u64,
        size: u64,
    },
    #[error("{}: {what} at byte {offset} is over the limit of {limit}", path.display())]
    TooLarge {
        path: PathBuf,
        what: String,
        offset: u64,
        limit: String,
    },
    #[error("{}: {problem} (at byte {offset})", path.display())]
    Malformed {
        path: PathBuf,
        offset: u64,
        problem: String,
    },
    #[error(
        "{}: there is no general.architecture key, so no runtime can tell what model this is",
        path.display()
    )]
    MissingArchitecture { path: PathBuf },
}

/// The type of a metadata value, as numbered by the GGUF specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    F32,
    Bool,
    String,
    Array,
    U64,
    I64,
    F64,
}

impl ValueType {
    /// The type numbered `code` in a file, if there is one.
    pub fn from_code(code: u32) -> Option<ValueType> {
        Some(match code {
            0 => ValueType::U8,
            1 => ValueType::I8,
            2 => ValueType::U16,
            3 => ValueType::I16,
            4 => ValueType::U32,
            5 => ValueType::I32,
            6 => ValueType::F32,
            7 => ValueType::Bool,
            8 => ValueType::String,
            9 => ValueType::Array,
            10 => ValueType::U64,
            11 => ValueType::I64,
            12 => ValueType::F64,
            _ => return None,
        })
    }

    /// The encoded size of a value of this type; `None` for strings and
    /// arrays, whose size depends on their length.
    fn fixed_size(self) -> Option<u64> {
        match self {
            ValueType::U8 | ValueType::I8 | ValueType::Bool => Some(1),
            ValueType::U16 | ValueType::I16 => Some(2),
            ValueType::U32 | ValueType::I32 | ValueType::F32 => Some(4),
            ValueType::U64 | ValueType::I64 | ValueType::F64 => Some(8),
            ValueType::String | ValueType::Array => None,
        }
    }

    /// The fewest bytes a value of this type takes in a file.
    fn min_size(self) -> u64 {
        match self {
            ValueType::String => 8,
            ValueType::Array => 12,
            scalar => scalar.fixed_size().unwrap_or(1),
        }
    }

    /// The specification's name, e.g. `uint32`.
    pub fn name(self) -> &'static str {
        match self {
            ValueType::U8 => "uint8",
            ValueType::I8 => "int8",
            ValueType::U16 => "uint16",
            ValueType::I16 => "int16",
            ValueType::U32 => "uint32",
            ValueType::I32 => "int32",
            ValueType::F32 => "float32",
            ValueType::Bool => "bool",
            ValueType::String => "string",
            ValueType::Array => "array",
            ValueType::U64 => "uint64",
            ValueType::I64 => "int64",
            ValueType::F64 => "float64",
        }
    }
}

/// One metadata value.
#[derive(Clone, Debug, PartialEq)]
pub enum MetaValue {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    U64(u64),
    I64(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    String(String),
    Array(MetaArray),
}

/// An array value. Arrays longer than 1024 items (a vocabulary, merges,
/// scores) keep only their element type and length.
#[derive(Clone, Debug, PartialEq)]
pub struct MetaArray {
    pub element: ValueType,
    pub len: u64,
    /// The items, when the array is short enough to keep.
    pub items: Option<Vec<MetaValue>>,
}

impl MetaValue {
    /// The value as an unsigned integer, if it is a non-negative integer
    /// of any width.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            MetaValue::U8(v) => Some(v.into()),
            MetaValue::U16(v) => Some(v.into()),
            MetaValue::U32(v) => Some(v.into()),
            MetaValue::U64(v) => Some(v),
            MetaValue::I8(v) => u64::try_from(v).ok(),
            MetaValue::I16(v) => u64::try_from(v).ok(),
            MetaValue::I32(v) => u64::try_from(v).ok(),
            MetaValue::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// The value as text, if it is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            MetaValue::String(s) => Some(s),
            _ => None,
        }
    }
}

/// A ggml tensor type (`ggml_type`), by its number in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GgmlType(pub u32);

impl GgmlType {
    /// The type's name (`Q4_K`, `F16`, ...), if this reader knows it.
    pub fn name(self) -> Option<&'static str> {
        self.layout().map(|(name, _, _)| name)
    }

    /// Name, values per block, bytes per block.
    fn layout(self) -> Option<(&'static str, u64, u64)> {
        Some(match self.0 {
            0 => ("F32", 1, 4),
            1 => ("F16", 1, 2),
            2 => ("Q4_0", 32, 18),
            3 => ("Q4_1", 32, 20),
            6 => ("Q5_0", 32, 22),
            7 => ("Q5_1", 32, 24),
            8 => ("Q8_0", 32, 34),
            9 => ("Q8_1", 32, 36),
            10 => ("Q2_K", 256, 84),
            11 => ("Q3_K", 256, 110),
            12 => ("Q4_K", 256, 144),
            13 => ("Q5_K", 256, 176),
            14 => ("Q6_K", 256, 210),
            15 => ("Q8_K", 256, 292),
            16 => ("IQ2_XXS", 256, 66),
            17 => ("IQ2_XS", 256, 74),
            18 => ("IQ3_XXS", 256, 98),
            19 => ("IQ1_S", 256, 50),
            20 => ("IQ4_NL", 32, 18),
            21 => ("IQ3_S", 256, 110),
            22 => ("IQ2_S", 256, 82),
            23 => ("IQ4_XS", 256, 136),
            24 => ("I8", 1, 1),
            25 => ("I16", 1, 2),
            26 => ("I32", 1, 4),
            27 => ("I64", 1, 8),
            28 => ("F64", 1, 8),
            29 => ("IQ1_M", 256, 56),
            30 => ("BF16", 1, 2),
            34 => ("TQ1_0", 256, 54),
            35 => ("TQ2_0", 256, 66),
            39 => ("MXFP4", 32, 17),
            _ => return None,
        })
    }
}

impl fmt::Display for GgmlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "type {}", self.0),
        }
    }
}

/// The name llama.cpp's quantize tool gives a `general.file_type`
/// (`llama_ftype`), e.g. 15 → `Q4_K_M`.
pub fn file_type_name(file_type: u64) -> Option<&'static str> {
    // Bit 10 marks a type llama.cpp guessed rather than read.
    Some(match file_type & !1024 {
        0 => "F32",
        1 => "F16",
        2 => "Q4_0",
        3 => "Q4_1",
        7 => "Q8_0",
        8 => "Q5_0",
        9 => "Q5_1",
        10 => "Q2_K",
        11 => "Q3_K_S",
        12 => "Q3_K_M",
        13 => "Q3_K_L",
        14 => "Q4_K_S",
        15 => "Q4_K_M",
        16 => "Q5_K_S",
        17 => "Q5_K_M",
        18 => "Q6_K",
        19 => "IQ2_XXS",
        20 => "IQ2_XS",
        21 => "Q2_K_S",
        22 => "IQ3_XS",
        23 => "IQ3_XXS",
        24 => "IQ1_S",
        25 => "IQ4_NL",
        26 => "IQ3_S",
        27 => "IQ3_M",
        28 => "IQ2_S",
        29 => "IQ2_M",
        30 => "IQ4_XS",
        31 => "IQ1_M",
        32 => "BF16",
        36 => "TQ1_0",
        37 => "TQ2_0",
        38 => "MXFP4_MOE",
        _ => return None,
    })
}

/// One entry of the tensor table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorInfo {
    pub name: String,
    /// Dimensions, innermost first (at most four).
    pub dims: Vec<u64>,
    pub ggml_type: GgmlType,
    /// Where the data starts, relative to the data section.
    pub offset: u64,
}

impl TensorInfo {
    /// How many values the tensor holds (the product of its dimensions).
    pub fn elements(&self) -> u64 {
        self.dims.iter().fold(1u64, |n, d| n.saturating_mul(*d))
    }
}

/// Everything in a GGUF header.
#[derive(Clone, Debug, PartialEq)]
pub struct GgufFile {
    /// 2 or 3.
    pub version: u32,
    /// The metadata in file order.
    pub metadata: Vec<(String, MetaValue)>,
    pub tensors: Vec<TensorInfo>,
    /// `general.alignment`, 32 unless the file says otherwise.
    pub alignment: u64,
    /// Where the tensor data starts.
    pub data_offset: u64,
    /// Whether `tokenizer.ggml.tokens` holds `<tool_call>` (found while
    /// streaming past the vocabulary, which is not kept).
    pub has_tool_call_token: bool,
}

impl GgufFile {
    /// Read the header of the GGUF file at `path`.
    pub fn read(path: &Path) -> Result<GgufFile, GgufError> {
        let io = |source| GgufError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        GgufFile::from_reader(BufReader::with_capacity(1 << 16, file), size, path)
    }

    /// Read a GGUF header from `reader`, which holds a file of `size`
    /// bytes; `path` names it in errors.
    pub fn from_reader(reader: impl Read, size: u64, path: &Path) -> Result<GgufFile, GgufError> {
        Parser {
            reader,
            pos: 0,
            size,
            path,
            kept: 0,
        }
        .file()
    }

    /// The value of metadata `key`.
    pub fn get(&self, key: &str) -> Option<&MetaValue> {
        self.metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, value)| value)
    }
}

/// What `agent model list` and `agent model info` show about a model file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgufInfo {
    pub path: PathBuf,
    pub file_size: u64,
    /// GGUF version, 2 or 3.
    pub version: u32,
    /// `general.architecture`, e.g. `llama`, `qwen3`, `gemma3`.
    pub architecture: String,
    /// `general.name`.
    pub name: Option<String>,
    /// `general.size_label`, e.g. `135M`.
    pub size_label: Option<String>,
    /// The sum over tensors of their element counts.
    pub parameters: u64,
    /// `general.file_type` as llama.cpp names it (`Q4_K_M`, `Q8_0`, ...),
    /// else the tensor type holding the most values.
    pub quantization: Option<String>,
    /// `<arch>.context_length`: the context the model was trained for.
    pub context_length: Option<u64>,
    /// `<arch>.block_count`: the number of layers.
    pub n_layer: Option<u64>,
    /// Whether `tokenizer.chat_template` is there.
    pub chat_template: bool,
    /// Whether the vocabulary has a `<tool_call>` token.
    pub has_tool_call_token: bool,
    pub tensor_count: u64,
}

impl GgufInfo {
    /// Read the header of the GGUF file at `path` and sum it up.
    pub fn read(path: &Path) -> Result<GgufInfo, GgufError> {
        let io = |source| GgufError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file_size = std::fs::metadata(path).map_err(io)?.len();
        let gguf = GgufFile::read(path)?;
        GgufInfo::from_file(&gguf, path, file_size)
    }

    /// Sum up an already read header of the file at `path`.
    pub fn from_file(gguf: &GgufFile, path: &Path, file_size: u64) -> Result<GgufInfo, GgufError> {
        let text = |key: &str| {
            gguf.get(key)
                .and_then(MetaValue::as_str)
                .map(str::to_string)
        };
        let architecture =
            text("general.architecture").ok_or_else(|| GgufError::MissingArchitecture {
                path: path.to_path_buf(),
            })?;
        let number = |key: String| gguf.get(&key).and_then(MetaValue::as_u64);
        let quantization = gguf
            .get("general.file_type")
            .and_then(MetaValue::as_u64)
            .and_then(file_type_name)
            .map(str::to_string)
            .or_else(|| dominant_type(&gguf.tensors).map(|t| t.to_string()));
        Ok(GgufInfo {
            path: path.to_path_buf(),
            file_size,
            version: gguf.version,
            name: text("general.name"),
            size_label: text("general.size_label"),
            parameters: gguf
                .tensors
                .iter()
                .fold(0u64, |sum, t| sum.saturating_add(t.elements())),
            quantization,
            context_length: number(format!("{architecture}.context_length")),
            n_layer: number(format!("{architecture}.block_count")),
            chat_template: gguf.get("tokenizer.chat_template").is_some(),
            has_tool_call_token: gguf.has_tool_call_token,
            tensor_count: gguf.tensors.len() as u64,
            architecture,
        })
    }
}

/// The tensor type that holds the most values.
fn dominant_type(tensors: &[TensorInfo]) -> Option<GgmlType> {
    let mut totals: BTreeMap<GgmlType, u64> = BTreeMap::new();
    for tensor in tensors {
        let total = totals.entry(tensor.ggml_type).or_default();
        *total = total.saturating_add(tensor.elements());
    }
    totals
        .into_iter()
        .max_by_key(|(_, total)| *total)
        .map(|(ty, _)| ty)
}

/// `1234567` → `1.2 MB`.
fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["kB", "MB", "GB", "TB", "PB", "EB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1000.0;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// A sequential reader that knows where it is and how much is left.
struct Parser<'a, R> {
    reader: R,
    pos: u64,
    size: u64,
    path: &'a Path,
    /// Bytes of memory kept so far (keys, values, tensor names).
    kept: u64,
}

impl<R: Read> Parser<'_, R> {
    fn file(mut self) -> Result<GgufFile, GgufError> {
        let available = self.size.min(4) as usize;
        let mut magic = [0u8; 4];
        self.read_into(&mut magic[..available], "the magic number")?;
        if &magic[..available] != b"GGUF" {
            return Err(GgufError::NotGguf {
                path: self.path.to_path_buf(),
                found: describe_magic(&magic[..available]),
            });
        }
        let version = self.u32("the version")?;
        match version {
            2 | 3 => {}
            v if matches!(v.swap_bytes(), 1..=3) => {
                return Err(GgufError::BigEndian {
                    path: self.path.to_path_buf(),
                });
            }
            version => {
                return Err(GgufError::UnsupportedVersion {
                    path: self.path.to_path_buf(),
                    version,
                });
            }
        }
        let tensor_count_at = self.pos;
        let tensor_count = self.u64("the tensor count")?;
        let key_count_at = self.pos;
        let key_count = self.u64("the metadata key count")?;
        // The smallest tensor entry: empty name, no dims, type, offset.
        self.check_count(tensor_count, 24, MAX_TENSORS, "tensor", tensor_count_at)?;
        // The smallest key/value: empty key, type, one byte.
        self.check_count(key_count, 13, MAX_KEYS, "metadata key", key_count_at)?;

        let mut metadata = Vec::new();
        let mut seen = HashSet::new();
        let mut has_tool_call_token = false;
        for _ in 0..key_count {
            let key_at = self.pos;
            let key = self.string("metadata key", MAX_KEY_BYTES)?;
            if !seen.insert(key.clone()) {
                return Err(self.malformed(key_at, format!("metadata key {key} appears twice")));
            }
            // Kept twice: in the metadata and in `seen`.
            self.charge(2 * key.len() as u64, key_at)?;
            let ty = self.value_type(&key)?;
            let value = if ty == ValueType::Array && key == TOKENS_KEY {
                let (array, found) = self.array(&key, 1, Some(TOOL_CALL_TOKEN))?;
                has_tool_call_token = found;
                MetaValue::Array(array)
            } else {
                self.value(ty, &key, 0)?
            };
            metadata.push((key, value));
        }

        let alignment = match metadata.iter().find(|(k, _)| k == "general.alignment") {
            None => 32,
            Some((_, value)) => match value.as_u64() {
                Some(a) if a.is_power_of_two() => a,
                _ => {
                    return Err(self.malformed(
                        self.pos,
                        format!("general.alignment is {value:?}, not a power of two"),
                    ));
                }
            },
        };

        let mut tensors = Vec::new();
        for _ in 0..tensor_count {
            tensors.push(self.tensor()?);
        }
        let header_end = self.pos;
        let data_offset = header_end
            .checked_next_multiple_of(alignment)
            .unwrap_or(u64::MAX);
        for tensor in &tensors {
            self.check_tensor_data(tensor, data_offset, alignment)?;
        }
        Ok(GgufFile {
            version,
            metadata,
            tensors,
            alignment,
            data_offset,
            has_tool_call_token,
        })
    }

    /// One value of type `ty`; `depth` counts the arrays around it.
    fn value(&mut self, ty: ValueType, key: &str, depth: u8) -> Result<MetaValue, GgufError> {
        let at = self.pos;
        let what = || format!("the value of {key}");
        let value = match ty {
            ValueType::U8 => MetaValue::U8(u8::from_le_bytes(self.bytes(&what())?)),
            ValueType::I8 => MetaValue::I8(i8::from_le_bytes(self.bytes(&what())?)),
            ValueType::U16 => MetaValue::U16(u16::from_le_bytes(self.bytes(&what())?)),
            ValueType::I16 => MetaValue::I16(i16::from_le_bytes(self.bytes(&what())?)),
            ValueType::U32 => MetaValue::U32(u32::from_le_bytes(self.bytes(&what())?)),
            ValueType::I32 => MetaValue::I32(i32::from_le_bytes(self.bytes(&what())?)),
            ValueType::U64 => MetaValue::U64(u64::from_le_bytes(self.bytes(&what())?)),
            ValueType::I64 => MetaValue::I64(i64::from_le_bytes(self.bytes(&what())?)),
            ValueType::F32 => MetaValue::F32(f32::from_le_bytes(self.bytes(&what())?)),
            ValueType::F64 => MetaValue::F64(f64::from_le_bytes(self.bytes(&what())?)),
            ValueType::Bool => MetaValue::Bool(self.bytes::<1>(&what())?[0] != 0),
            ValueType::String => {
                let text = self.string(&format!("metadata string {key}"), MAX_STRING_BYTES)?;
                self.charge(text.len() as u64, at)?;
                MetaValue::String(text)
            }
            ValueType::Array => MetaValue::Array(self.array(key, depth + 1, None)?.0),
        };
        self.charge(size_of::<MetaValue>() as u64, at)?;
        Ok(value)
    }

    /// An array (its element type, length and items); `depth` is 1 for a
    /// top-level array. With `find`, string items are compared with it as
    /// they stream by, and whether one matched comes back.
    fn array(
        &mut self,
        key: &str,
        depth: u8,
        find: Option<&[u8]>,
    ) -> Result<(MetaArray, bool), GgufError> {
        let at = self.pos;
        if depth > MAX_ARRAY_DEPTH {
            return Err(self.malformed(
                at,
                format!("{key} nests arrays deeper than {MAX_ARRAY_DEPTH} levels"),
            ));
        }
        let element = self.value_type(key)?;
        let len_at = self.pos;
        let len = self.u64(&format!("the length of array {key}"))?;
        let min = element.min_size();
        if len.saturating_mul(min) > self.remaining() {
            return Err(GgufError::PastEnd {
                path: self.path.to_path_buf(),
                what: format!("metadata array {key} of {len} {} values", element.name()),
                offset: len_at,
                size: self.size,
            });
        }
        let mut found = false;
        if len <= KEPT_ARRAY_ITEMS && find.is_none() {
            // Bounded by KEPT_ARRAY_ITEMS and by what the file holds.
            let mut items = Vec::with_capacity(len as usize);
            for _ in 0..len {
                items.push(self.value(element, key, depth)?);
            }
            let array = MetaArray {
                element,
                len,
                items: Some(items),
            };
            return Ok((array, found));
        }
        match (element.fixed_size(), element) {
            (Some(size), _) => self.skip(len * size, &format!("array {key}"))?,
            (None, ValueType::String) => {
                let what = format!("a string in {key}");
                for _ in 0..len {
                    let matched = self.skip_string(&what, find)?;
                    found |= matched;
                }
            }
            (None, _) => {
                for _ in 0..len {
                    self.skip_array(key, depth + 1)?;
                }
            }
        }
        let array = MetaArray {
            element,
            len,
            items: None,
        };
        Ok((array, found))
    }

    /// Stream past one string (`what` names it in errors); whether it
    /// equals `find`.
    fn skip_string(&mut self, what: &str, find: Option<&[u8]>) -> Result<bool, GgufError> {
        let len = self.length(what, MAX_STRING_BYTES)?;
        match find {
            Some(target) if len == target.len() as u64 && target.len() <= 64 => {
                let mut buffer = [0u8; 64];
                let slot = &mut buffer[..target.len()];
                self.read_into(slot, what)?;
                Ok(slot == target)
            }
            _ => {
                self.skip(len, what)?;
                Ok(false)
            }
        }
    }

    /// Stream past a nested array without keeping it.
    fn skip_array(&mut self, key: &str, depth: u8) -> Result<(), GgufError> {
        let at = self.pos;
        if depth > MAX_ARRAY_DEPTH {
            return Err(self.malformed(
                at,
                format!("{key} nests arrays deeper than {MAX_ARRAY_DEPTH} levels"),
            ));
        }
        let element = self.value_type(key)?;
        let len_at = self.pos;
        let len = self.u64(&format!("the length of an array in {key}"))?;
        if len.saturating_mul(element.min_size()) > self.remaining() {
            return Err(GgufError::PastEnd {
                path: self.path.to_path_buf(),
                what: format!("an array in {key} of {len} {} values", element.name()),
                offset: len_at,
                size: self.size,
            });
        }
        match element.fixed_size() {
            Some(size) => self.skip(len * size, &format!("an array in {key}")),
            None => {
                let what = format!("a string in {key}");
                for _ in 0..len {
                    match element {
                        ValueType::String => {
                            self.skip_string(&what, None)?;
                        }
                        _ => self.skip_array(key, depth + 1)?,
                    }
                }
                Ok(())
            }
        }
    }

    fn tensor(&mut self) -> Result<TensorInfo, GgufError> {
        let at = self.pos;
        let name = self.string("tensor name", MAX_TENSOR_NAME_BYTES)?;
        let n_dims = self.u32(&format!("the dimension count of tensor {name}"))?;
        if n_dims > MAX_DIMS {
            return Err(self.malformed(
                at,
                format!("tensor {name} has {n_dims} dimensions (at most {MAX_DIMS})"),
            ));
        }
        let mut dims = Vec::with_capacity(n_dims as usize);
        for _ in 0..n_dims {
            dims.push(self.u64(&format!("the dimensions of tensor {name}"))?);
        }
        if dims
            .iter()
            .try_fold(1u64, |n, d| n.checked_mul(*d))
            .is_none()
        {
            return Err(self.malformed(
                at,
                format!("tensor {name} has dimensions {dims:?}, too many values to count"),
            ));
        }
        let ggml_type = GgmlType(self.u32(&format!("the type of tensor {name}"))?);
        let offset = self.u64(&format!("the data offset of tensor {name}"))?;
        self.charge(
            name.len() as u64 + 8 * u64::from(n_dims) + size_of::<TensorInfo>() as u64,
            at,
        )?;
        Ok(TensorInfo {
            name,
            dims,
            ggml_type,
            offset,
        })
    }

    /// Check that a tensor's data is aligned and lies inside the file.
    /// Tensors of types this reader does not know are not measured.
    fn check_tensor_data(
        &self,
        tensor: &TensorInfo,
        data_offset: u64,
        alignment: u64,
    ) -> Result<(), GgufError> {
        let name = &tensor.name;
        if !tensor.offset.is_multiple_of(alignment) {
            return Err(self.malformed(
                data_offset,
                format!(
                    "tensor {name} starts at data offset {}, not a multiple of the alignment {alignment}",
                    tensor.offset
                ),
            ));
        }
        let Some((type_name, block, block_bytes)) = tensor.ggml_type.layout() else {
            return Ok(());
        };
        let row = tensor.dims.first().copied().unwrap_or(1);
        if !row.is_multiple_of(block) {
            return Err(self.malformed(
                data_offset,
                format!("tensor {name} has rows of {row} values, not a multiple of {type_name}'s block of {block}"),
            ));
        }
        let rows = tensor
            .dims
            .iter()
            .skip(1)
            .fold(1u64, |n, d| n.saturating_mul(*d));
        let bytes = (row / block)
            .saturating_mul(block_bytes)
            .saturating_mul(rows);
        let start = data_offset.saturating_add(tensor.offset);
        if start.saturating_add(bytes) > self.size {
            return Err(GgufError::Truncated {
                path: self.path.to_path_buf(),
                size: self.size,
                what: format!("the data of tensor {name}"),
                offset: start,
                needed: bytes,
            });
        }
        Ok(())
    }

    fn remaining(&self) -> u64 {
        self.size.saturating_sub(self.pos)
    }

    /// A count from the header must fit in the file and under `limit`.
    fn check_count(
        &self,
        count: u64,
        min_size: u64,
        limit: u64,
        what: &str,
        at: u64,
    ) -> Result<(), GgufError> {
        if count.saturating_mul(min_size) > self.remaining() {
            return Err(GgufError::PastEnd {
                path: self.path.to_path_buf(),
                what: format!("a {what} count of {count}"),
                offset: at,
                size: self.size,
            });
        }
        if count > limit {
            return Err(GgufError::TooLarge {
                path: self.path.to_path_buf(),
                what: format!("a {what} count of {count}"),
                offset: at,
                limit: format!("{limit}"),
            });
        }
        Ok(())
    }

    /// Count `bytes` of kept memory against the budget.
    fn charge(&mut self, bytes: u64, at: u64) -> Result<(), GgufError> {
        self.kept = self.kept.saturating_add(bytes);
        if self.kept > MEMORY_BUDGET {
            return Err(GgufError::TooLarge {
                path: self.path.to_path_buf(),
                what: "the metadata and tensor table kept in memory".into(),
                offset: at,
                limit: human_bytes(MEMORY_BUDGET),
            });
        }
        Ok(())
    }

    fn malformed(&self, offset: u64, problem: String) -> GgufError {
        GgufError::Malformed {
            path: self.path.to_path_buf(),
            offset,
            problem,
        }
    }

    fn value_type(&mut self, key: &str) -> Result<ValueType, GgufError> {
        let at = self.pos;
        let code = self.u32(&format!("the value type of {key}"))?;
        ValueType::from_code(code).ok_or_else(|| {
            self.malformed(
                at,
                format!("{key} has value type {code}, which GGUF does not define"),
            )
        })
    }

    /// A length prefix: it must fit in what is left of the file and stay
    /// under `limit`.
    fn length(&mut self, what: &str, limit: u64) -> Result<u64, GgufError> {
        let at = self.pos;
        let len = self.u64(what)?;
        if len > self.remaining() {
            return Err(GgufError::PastEnd {
                path: self.path.to_path_buf(),
                what: format!("{what} of {}", human_bytes(len)),
                offset: at,
                size: self.size,
            });
        }
        if len > limit {
            return Err(GgufError::TooLarge {
                path: self.path.to_path_buf(),
                what: format!("{what} of {}", human_bytes(len)),
                offset: at,
                limit: human_bytes(limit),
            });
        }
        Ok(len)
    }

    /// A length-prefixed string; invalid UTF-8 is replaced, not refused.
    fn string(&mut self, what: &str, limit: u64) -> Result<String, GgufError> {
        let len = self.length(what, limit)?;
        // Bounded by `limit` and by what the file holds.
        let mut bytes = vec![0u8; len as usize];
        self.read_into(&mut bytes, what)?;
        Ok(match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
        })
    }

    fn u32(&mut self, what: &str) -> Result<u32, GgufError> {
        Ok(u32::from_le_bytes(self.bytes(what)?))
    }

    fn u64(&mut self, what: &str) -> Result<u64, GgufError> {
        Ok(u64::from_le_bytes(self.bytes(what)?))
    }

    fn bytes<const N: usize>(&mut self, what: &str) -> Result<[u8; N], GgufError> {
        let mut bytes = [0u8; N];
        self.read_into(&mut bytes, what)?;
        Ok(bytes)
    }

    /// Fill `buffer`, which must fit in what is left of the file.
    fn read_into(&mut self, buffer: &mut [u8], what: &str) -> Result<(), GgufError> {
        let needed = buffer.len() as u64;
        if needed > self.remaining() {
            return Err(self.truncated(what, needed));
        }
        self.reader
            .read_exact(buffer)
            .map_err(|source| self.read_error(source, what, needed))?;
        self.pos += needed;
        Ok(())
    }

    /// Stream past `count` bytes, which must fit in what is left.
    fn skip(&mut self, count: u64, what: &str) -> Result<(), GgufError> {
        if count > self.remaining() {
            return Err(self.truncated(what, count));
        }
        let mut small = [0u8; 256];
        if count <= small.len() as u64 {
            // Most skipped strings are a few bytes: no copy machinery.
            return self.read_into(&mut small[..count as usize], what);
        }
        let copied = std::io::copy(&mut (&mut self.reader).take(count), &mut std::io::sink())
            .map_err(|source| self.read_error(source, what, count))?;
        if copied < count {
            // The file shrank while being read.
            return Err(self.truncated(what, count));
        }
        self.pos += count;
        Ok(())
    }

    fn truncated(&self, what: &str, needed: u64) -> GgufError {
        GgufError::Truncated {
            path: self.path.to_path_buf(),
            size: self.size,
            what: what.to_string(),
            offset: self.pos,
            needed,
        }
    }

    fn read_error(&self, source: std::io::Error, what: &str, needed: u64) -> GgufError {
        if source.kind() == std::io::ErrorKind::UnexpectedEof {
            self.truncated(what, needed)
        } else {
            GgufError::Io {
                path: self.path.to_path_buf(),
                source,
            }
        }
    }
}

/// The first bytes of a file that is not GGUF, for the error message.
fn describe_magic(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "nothing: it is empty".into();
    }
    format!("\"{}\"", bytes.escape_ascii())
}

/// The smallest GGUF whose header reads (a `llama` with no tensors),
/// followed by `padding` zero bytes: a stand-in model file for tests.
#[cfg(test)]
pub(crate) fn minimal_gguf(padding: usize) -> Vec<u8> {
    let mut out = b"GGUF".to_vec();
    out.extend(3u32.to_le_bytes());
    out.extend(0u64.to_le_bytes());
    out.extend(1u64.to_le_bytes());
    let key = "general.architecture";
    out.extend((key.len() as u64).to_le_bytes());
    out.extend(key.as_bytes());
    out.extend(8u32.to_le_bytes());
    out.extend(5u64.to_le_bytes());
    out.extend(b"llama");
    out.extend(std::iter::repeat_n(0u8, padding));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_model() -> Option<PathBuf> {
        let cache = std::env::var_os("NU_AGENT_CACHE")
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/nu-agent"))
            })?;
        let path = cache.join("models/SmolLM2-135M-Instruct.Q4_1.gguf");
        if path.exists() {
            Some(path)
        } else {
            eprintln!(
                "skipped: {} is missing (nu-scripts/fetch-test-model.sh)",
                path.display()
            );
            None
        }
    }

    /// The model's header plus enough of its data to end just before
    /// `cut`, read from memory as if the file had `cut` bytes.
    fn header_of(path: &Path) -> (Vec<u8>, u64) {
        let bytes = std::fs::read(path).unwrap();
        let size = bytes.len() as u64;
        let header = GgufFile::read(path).unwrap().data_offset as usize;
        (bytes[..header].to_vec(), size)
    }

    /// `header` followed by zeros up to `size` bytes.
    struct Padded<'a> {
        header: &'a [u8],
        size: u64,
        pos: u64,
    }

    impl Read for Padded<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let left = self.size.saturating_sub(self.pos);
            let n = (buf.len() as u64).min(left) as usize;
            let at = self.pos as usize;
            let from_header = self.header.len().saturating_sub(at).min(n);
            if from_header > 0 {
                buf[..from_header].copy_from_slice(&self.header[at..at + from_header]);
            }
            buf[from_header..n].fill(0);
            self.pos += n as u64;
            Ok(n)
        }
    }

    fn parse(header: &[u8], size: u64) -> Result<GgufFile, GgufError> {
        let reader = Padded {
            header,
            size,
            pos: 0,
        };
        GgufFile::from_reader(reader, size, Path::new("m.gguf"))
    }

    #[test]
    fn reads_the_smollm2_test_model() {
        let Some(path) = test_model() else { return };
        let info = GgufInfo::read(&path).unwrap();
        assert_eq!(info.architecture, "llama");
        assert_eq!(info.version, 3);
        assert_eq!(info.file_size, 98_362_432);
        assert_eq!(info.parameters, 134_515_008);
        assert_eq!(info.quantization.as_deref(), Some("Q4_1"));
        assert_eq!(info.context_length, Some(8192));
        assert_eq!(info.n_layer, Some(30));
        assert_eq!(info.size_label.as_deref(), Some("135M"));
        assert_eq!(
            info.name.as_deref(),
            Some("Smollm2 135M 8k Lc100K Mix1 Ep2")
        );
        assert!(info.chat_template);
        assert!(!info.has_tool_call_token);
        assert_eq!(info.tensor_count, 272);

        let gguf = GgufFile::read(&path).unwrap();
        assert_eq!(gguf.alignment, 32);
        assert_eq!(gguf.data_offset, 1_785_664);
        let tokens = match gguf.get("tokenizer.ggml.tokens") {
            Some(MetaValue::Array(array)) => array,
            other => panic!("tokens: {other:?}"),
        };
        assert_eq!((tokens.element, tokens.len), (ValueType::String, 49_152));
        assert!(tokens.items.is_none(), "the vocabulary is not kept");
        match gguf.get("general.languages") {
            Some(MetaValue::Array(MetaArray {
                items: Some(items), ..
            })) => assert_eq!(items, &[MetaValue::String("en".into())]),
            other => panic!("languages: {other:?}"),
        }
        assert_eq!(
            gguf.get("llama.rope.freq_base"),
            Some(&MetaValue::F32(100_000.0))
        );
        assert_eq!(
            gguf.get("tokenizer.ggml.add_bos_token"),
            Some(&MetaValue::Bool(false))
        );
        let embed = &gguf.tensors[0];
        assert_eq!(embed.name, "token_embd.weight");
        assert_eq!(embed.dims, vec![576, 49_152]);
        assert_eq!(embed.ggml_type.name(), Some("Q8_0"));
        assert_eq!(gguf.metadata.len(), 33);
    }

    #[test]
    fn reads_the_gemma3_test_model_when_present() {
        let Some(smol) = test_model() else { return };
        let path = smol.with_file_name("gemma-3-270m-q4_k_m.gguf");
        if !path.exists() {
            eprintln!(
                "skipped: no {} (nu-scripts/fetch-gemma3-model.sh)",
                path.display()
            );
            return;
        }
        let info = GgufInfo::read(&path).unwrap();
        assert_eq!(info.architecture, "gemma3");
        assert_eq!(info.parameters, 268_098_176);
        assert_eq!(info.quantization.as_deref(), Some("Q4_K_M"));
        assert_eq!(info.context_length, Some(32_768));
        assert_eq!(info.n_layer, Some(18));
        assert!(!info.chat_template, "the base model has no chat template");
    }

    #[test]
    fn every_cut_of_the_test_model_is_an_error() {
        let Some(path) = test_model() else { return };
        let (header, size) = header_of(&path);
        let whole = parse(&header, size).unwrap();
        assert_eq!(whole.tensors.len(), 272);
        let mut cuts: Vec<u64> = (0..2048).collect();
        cuts.extend((0..header.len() as u64).step_by(9973));
        cuts.extend((header.len() as u64..size).step_by(4_999_999));
        cuts.extend([header.len() as u64 - 1, header.len() as u64, size - 1]);
        for cut in cuts {
            let error = parse(&header, cut).unwrap_err();
            let message = error.to_string();
            assert!(message.starts_with("m.gguf"), "{message}");
            assert!(
                matches!(
                    error,
                    GgufError::Truncated { .. }
                        | GgufError::PastEnd { .. }
                        | GgufError::NotGguf { .. }
                ),
                "cut at {cut}: {message}"
            );
            if cut < 4 {
                assert!(matches!(error, GgufError::NotGguf { .. }), "{message}");
            }
        }
    }

    #[test]
    fn truncated_files_on_disk_say_where() {
        let Some(path) = test_model() else { return };
        let (header, _) = header_of(&path);
        let dir = tempfile::tempdir().unwrap();
        for cut in [0usize, 3, 7, 100, 5000, header.len() - 1, header.len()] {
            let copy = dir.path().join(format!("cut{cut}.gguf"));
            std::fs::write(&copy, &header[..cut]).unwrap();
            let error = GgufInfo::read(&copy).unwrap_err();
            let message = error.to_string();
            assert!(message.contains(&copy.display().to_string()), "{message}");
            if cut >= 4 {
                assert!(
                    message.contains(&format!("truncated at byte {cut}"))
                        || message.contains("runs past the end"),
                    "{message}"
                );
            }
        }
        let empty = dir.path().join("cut0.gguf");
        assert!(
            GgufInfo::read(&empty)
                .unwrap_err()
                .to_string()
                .contains("is not a GGUF file")
        );
        let missing = GgufInfo::read(&dir.path().join("none.gguf")).unwrap_err();
        assert!(matches!(missing, GgufError::Io { .. }), "{missing}");
    }

    /// A small GGUF with one value of every type and one tensor.
    fn synthetic(version: u32) -> Vec<u8> {
        let mut out = Vec::new();
        let string = |out: &mut Vec<u8>, s: &str| {
            out.extend((s.len() as u64).to_le_bytes());
            out.extend(s.as_bytes());
        };
        out.extend(b"GGUF");
        out.extend(version.to_le_bytes());
        out.extend(1u64.to_le_bytes());
        out.extend(9u64.to_le_bytes());
        let kv = |out: &mut Vec<u8>, key: &str, ty: u32, value: &[u8]| {
            string(out, key);
            out.extend(ty.to_le_bytes());
            out.extend(value);
        };
        let mut arch = Vec::new();
        string(&mut arch, "qwen3");
        kv(&mut out, "general.architecture", 8, &arch);
        kv(&mut out, "general.file_type", 4, &15u32.to_le_bytes());
        kv(
            &mut out,
            "qwen3.context_length",
            10,
            &40_960u64.to_le_bytes(),
        );
        kv(&mut out, "qwen3.block_count", 5, &28i32.to_le_bytes());
        kv(&mut out, "x.f64", 12, &1.5f64.to_le_bytes());
        kv(&mut out, "x.small", 1, &[0xff]);
        let mut nested = Vec::new();
        nested.extend(9u32.to_le_bytes());
        nested.extend(2u64.to_le_bytes());
        for n in [1u16, 2] {
            nested.extend(2u32.to_le_bytes());
            nested.extend(1u64.to_le_bytes());
            nested.extend(n.to_le_bytes());
        }
        kv(&mut out, "x.nested", 9, &nested);
        let mut tokens = Vec::new();
        tokens.extend(8u32.to_le_bytes());
        tokens.extend(2000u64.to_le_bytes());
        for i in 0..2000 {
            let token = if i == 1500 {
                "<tool_call>".to_string()
            } else {
                format!("t{i}")
            };
            string(&mut tokens, &token);
        }
        kv(&mut out, TOKENS_KEY, 9, &tokens);
        let mut template = Vec::new();
        string(&mut template, "{{ messages }}");
        kv(&mut out, "tokenizer.chat_template", 8, &template);
        string(&mut out, "output.weight");
        out.extend(2u32.to_le_bytes());
        out.extend(256u64.to_le_bytes());
        out.extend(4u64.to_le_bytes());
        out.extend(12u32.to_le_bytes());
        out.extend(0u64.to_le_bytes());
        while out.len() % 32 != 0 {
            out.push(0);
        }
        out.extend(std::iter::repeat_n(0u8, 4 * 144));
        out
    }

    #[test]
    fn reads_every_value_type_and_finds_the_tool_call_token() {
        for version in [2, 3] {
            let bytes = synthetic(version);
            let gguf = parse(&bytes, bytes.len() as u64).unwrap();
            assert_eq!(gguf.version, version);
            assert!(gguf.has_tool_call_token);
            assert_eq!(gguf.get("x.small"), Some(&MetaValue::I8(-1)));
            assert_eq!(gguf.get("x.f64"), Some(&MetaValue::F64(1.5)));
            let Some(MetaValue::Array(nested)) = gguf.get("x.nested") else {
                panic!("nested")
            };
            assert_eq!(nested.element, ValueType::Array);
            assert_eq!(nested.items.as_ref().map(Vec::len), Some(2));
            let info = GgufInfo::from_file(&gguf, Path::new("s.gguf"), bytes.len() as u64).unwrap();
            assert_eq!(info.architecture, "qwen3");
            assert_eq!(info.quantization.as_deref(), Some("Q4_K_M"));
            assert_eq!(info.context_length, Some(40_960));
            assert_eq!(info.n_layer, Some(28));
            assert_eq!(info.parameters, 1024);
            assert!(info.chat_template && info.has_tool_call_token);
        }
    }

    #[test]
    fn quantization_falls_back_to_the_dominant_tensor_type() {
        let bytes = synthetic(3);
        let mut gguf = parse(&bytes, bytes.len() as u64).unwrap();
        gguf.metadata.retain(|(k, _)| k != "general.file_type");
        gguf.tensors.push(TensorInfo {
            name: "norm".into(),
            dims: vec![256],
            ggml_type: GgmlType(0),
            offset: 0,
        });
        let info = GgufInfo::from_file(&gguf, Path::new("s.gguf"), 0).unwrap();
        assert_eq!(info.quantization.as_deref(), Some("Q4_K"));
        assert_eq!(file_type_name(15 | 1024), Some("Q4_K_M"));
        assert_eq!(file_type_name(4), None);
    }

    #[test]
    fn hostile_headers_get_clear_errors() {
        let path = Path::new("h.gguf");
        let read = |bytes: &[u8]| {
            GgufFile::from_reader(bytes, bytes.len() as u64, path)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            read(b"PK\x03\x04rest"),
            "h.gguf is not a GGUF file (it starts with \"PK\\x03\\x04\", not \"GGUF\")"
        );
        let mut v1 = b"GGUF".to_vec();
        v1.extend(1u32.to_le_bytes());
        assert!(read(&v1).contains("GGUF version 1 is not supported"));
        let mut be = b"GGUF".to_vec();
        be.extend(3u32.to_be_bytes());
        assert!(read(&be).contains("big-endian"));

        // A 4 GB string in a small file.
        let mut huge = b"GGUF".to_vec();
        huge.extend(3u32.to_le_bytes());
        huge.extend(0u64.to_le_bytes());
        huge.extend(1u64.to_le_bytes());
        huge.extend(12u64.to_le_bytes());
        huge.extend(b"general.name");
        huge.extend(8u32.to_le_bytes());
        huge.extend((4u64 << 30).to_le_bytes());
        huge.extend([0u8; 64]);
        let message = read(&huge);
        assert!(
            message.contains("metadata string general.name of 4.3 GB at byte 48"),
            "{message}"
        );
        assert!(
            message.contains("runs past the end of the file"),
            "{message}"
        );

        // Billions of tensors.
        let mut many = b"GGUF".to_vec();
        many.extend(3u32.to_le_bytes());
        many.extend(u64::MAX.to_le_bytes());
        many.extend(0u64.to_le_bytes());
        assert!(read(&many).contains("tensor count of 18446744073709551615"));

        // An undefined value type.
        let mut odd = b"GGUF".to_vec();
        odd.extend(3u32.to_le_bytes());
        odd.extend(0u64.to_le_bytes());
        odd.extend(1u64.to_le_bytes());
        odd.extend(1u64.to_le_bytes());
        odd.extend(b"k");
        odd.extend(77u32.to_le_bytes());
        odd.extend([0u8; 16]);
        assert!(read(&odd).contains("k has value type 77"), "{}", read(&odd));
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(999), "999 B");
        assert_eq!(human_bytes(98_362_432), "98.4 MB");
        assert_eq!(human_bytes(u64::MAX), "18.4 EB");
    }

    mod fuzz {
        use proptest::prelude::*;

        use super::*;

        fn flipped(bytes: &[u8], flips: &[(usize, u8)]) -> Vec<u8> {
            let mut out = bytes.to_vec();
            for (at, value) in flips {
                let at = at % out.len();
                out[at] = *value;
            }
            out
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(3000))]

            /// Random bytes changed anywhere in a small GGUF: a value or an
            /// error, never a panic.
            #[test]
            fn flipped_synthetic_headers_never_panic(
                flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6),
                version in 2u32..4,
            ) {
                let bytes = flipped(&synthetic(version), &flips);
                if let Ok(gguf) = parse(&bytes, bytes.len() as u64) {
                    let _ = GgufInfo::from_file(&gguf, Path::new("f.gguf"), bytes.len() as u64);
                }
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(200))]

            /// Random bytes changed in the test model's header, mostly in
            /// its first kilobytes where the counts and short keys are.
            #[test]
            fn flipped_model_headers_never_panic(
                flips in proptest::collection::vec((0usize..4096, any::<u8>()), 1..4),
                far in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..3),
            ) {
                let Some(path) = test_model() else { return Ok(()) };
                let (header, size) = model_header(&path);
                let bytes = flipped(&flipped(header, &flips), &far);
                if let Ok(gguf) = parse(&bytes, size) {
                    let _ = GgufInfo::from_file(&gguf, Path::new("f.gguf"), size);
                }
            }
        }

        fn model_header(path: &Path) -> (&'static [u8], u64) {
            static HEADER: std::sync::OnceLock<(Vec<u8>, u64)> = std::sync::OnceLock::new();
            let (bytes, size) = HEADER.get_or_init(|| header_of(path));
            (bytes, *size)
        }
    }
}
