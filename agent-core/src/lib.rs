pub mod llm;
pub mod observe;
pub mod shell;
