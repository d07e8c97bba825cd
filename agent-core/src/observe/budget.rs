//! Token budgets and token counting.

/// Counts tokens of model-facing text.
pub trait TokenCounter: Send + Sync {
    fn count(&self, text: &str) -> usize;
}

/// A tokenizer-free estimate: one token per short word piece (up to four
/// letters or digits), one per punctuation or symbol character, one per
/// newline. It errs on the high side for prose and is close for tabular text.
#[derive(Clone, Copy, Debug, Default)]
pub struct ApproxTokenCounter;

impl TokenCounter for ApproxTokenCounter {
    fn count(&self, text: &str) -> usize {
        let mut tokens = 0;
        let mut run = 0usize;
        for c in text.chars() {
            if c.is_alphanumeric() {
                run += 1;
                continue;
            }
            tokens += run.div_ceil(4);
            run = 0;
            if c == '\n' || !c.is_whitespace() {
                tokens += 1;
            }
        }
        tokens + run.div_ceil(4)
    }
}

/// How many tokens a rendering may use, and how to count them.
pub struct Budget<'a> {
    pub max_tokens: usize,
    pub counter: &'a dyn TokenCounter,
}

impl<'a> Budget<'a> {
    pub fn new(max_tokens: usize, counter: &'a dyn TokenCounter) -> Self {
        Budget {
            max_tokens,
            counter,
        }
    }

    /// A budget of `max_tokens` with the approximate counter.
    pub fn approx(max_tokens: usize) -> Budget<'static> {
        static APPROX: ApproxTokenCounter = ApproxTokenCounter;
        Budget {
            max_tokens,
            counter: &APPROX,
        }
    }

    pub fn count(&self, text: &str) -> usize {
        self.counter.count(text)
    }

    /// The same counter with a different limit.
    pub fn with_max(&self, max_tokens: usize) -> Budget<'a> {
        Budget {
            max_tokens,
            counter: self.counter,
        }
    }
}
