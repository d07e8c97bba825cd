//! Choosing a token under the tool-call grammar the way llama.cpp's own
//! `common_sampler` does (`grammar_first = false`): the chain (greedy, or
//! top-k/top-p/min-p/temperature) chooses from the whole vocabulary as if
//! there were no grammar, and only its choice is checked against the
//! grammar. Only when the grammar refuses it is the whole vocabulary
//! filtered and the choice made again from what is left. Filtering the
//! vocabulary costs the grammar engine milliseconds a token (more inside a
//! pipeline), checking one token next to nothing, and most tokens of a
//! call are the ones the model would write anyway.
//!
//! Greedy, the two orders choose the same tokens: the best token, when the
//! grammar allows it, is also the best of those it allows. Sampled warm
//! they do not make the same draws: the chain's cuts (top-k, top-p, min-p)
//! and its draw are over the whole vocabulary first, and a refused draw is
//! drawn again, from the same seeded stream, over what the grammar allows
//! (as llama.cpp does). A lazy grammar not yet triggered filters nothing,
//! so its check passes; the tokens chosen are watched for its trigger
//! here, and it is told them only once a call starts (see `trigger`).

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use llama_cpp_2::{
    context::LlamaContext,
    sampling::LlamaSampler,
    token::{LlamaToken, data::LlamaTokenData, data_array::LlamaTokenDataArray},
};

use super::{host::LoadedModel, trigger::Trigger};

/// Where the grammar comes in a choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum GrammarOrder {
    /// The chain chooses, the grammar checks its choice (and filters the
    /// vocabulary only when it refuses it).
    SampleFirst,
    /// The grammar filters the whole vocabulary before the chain chooses
    /// (what every token cost before; tests compare the two).
    GrammarFirst,
}

/// What the choices of a turn cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct SamplingStats {
    /// Choices made (tokens chosen, or candidates weighed for one).
    pub choices: usize,
    /// Of those, the chain's first choices the grammar refused (chosen
    /// again from the filtered vocabulary).
    pub refused: usize,
    /// Time spent choosing them (filtering and sampling, not decoding).
    pub time: Duration,
    /// Of that, the time spent on the refused ones.
    pub refused_time: Duration,
}

/// The samplers of a turn: the tool-call grammar, when there is one, and
/// the chain that chooses.
pub(super) struct Sampling {
    grammar: Option<LlamaSampler>,
    /// A lazy grammar's trigger, until it fires: the grammar is told no
    /// token before.
    waiting: Option<Waiting>,
    chain: LlamaSampler,
    order: GrammarOrder,
    /// The candidates' buffer, kept between tokens.
    candidates: LlamaTokenDataArray,
    pub stats: SamplingStats,
}

impl Sampling {
    pub fn new(grammar: Option<LlamaSampler>, chain: LlamaSampler, order: GrammarOrder) -> Self {
        Sampling {
            grammar,
            waiting: None,
            chain,
            order,
            candidates: LlamaTokenDataArray::new(Vec::new(), false),
            stats: SamplingStats::default(),
        }
    }

    /// The grammar (lazy) told no token until [`Trigger`] sees a call
    /// start in the text of the tokens accepted (pieces from `model`).
    pub fn watching(mut self, trigger: Trigger, model: Arc<LoadedModel>) -> Self {
        self.waiting = Some(Waiting {
            trigger,
            model,
            piece: Vec::new(),
        });
        self
    }

    /// Choose the next token from the context's last logits and accept it
    /// (into the grammar and the chain). `None` when the chain chose
    /// nothing (all candidates refused).
    pub fn sample(&mut self, ctx: &LlamaContext<'_>) -> Option<LlamaToken> {
        let started = Instant::now();
        let refused = self.stats.refused;
        let token = self.choose(ctx);
        let took = started.elapsed();
        self.stats.choices += 1;
        self.stats.time += took;
        if self.stats.refused > refused {
            self.stats.refused_time += took;
        }
        token
    }

    /// The next token, accepted.
    fn choose(&mut self, ctx: &LlamaContext<'_>) -> Option<LlamaToken> {
        let Some(grammar) = self.grammar.as_mut() else {
            // llama.cpp fills the candidates, applies the chain and
            // accepts its choice in one call.
            return Some(self.chain.sample(ctx, -1));
        };
        fill(&mut self.candidates, ctx);
        if self.order == GrammarOrder::GrammarFirst {
            self.candidates.apply_sampler(grammar);
        }
        self.candidates.apply_sampler(&mut self.chain);
        let mut token = self.candidates.selected_token();
        if self.order == GrammarOrder::SampleFirst && !token.is_some_and(|t| allows(grammar, t)) {
            self.stats.refused += 1;
            fill(&mut self.candidates, ctx);
            self.candidates.apply_sampler(grammar);
            self.candidates.apply_sampler(&mut self.chain);
            token = self.candidates.selected_token();
        }
        if let Some(token) = token {
            self.accept(token);
        }
        token
    }

    /// The whole vocabulary filtered by the grammar, then applied to the
    /// chain (its choice selected, nothing accepted): for choices that
    /// weigh the alternatives the grammar allows (the loop guard, avoided
    /// calls).
    pub fn filtered(&mut self, ctx: &LlamaContext<'_>) -> LlamaTokenDataArray {
        let started = Instant::now();
        let mut candidates = ctx.token_data_array_ith(-1);
        if let Some(grammar) = self.grammar.as_mut() {
            candidates.apply_sampler(grammar);
        }
        candidates.apply_sampler(&mut self.chain);
        self.stats.choices += 1;
        self.stats.time += started.elapsed();
        candidates
    }

    /// Whether the grammar lets `token` come next (nothing is accepted).
    #[cfg(test)]
    pub fn allows(&mut self, token: LlamaToken) -> bool {
        self.grammar.as_mut().is_none_or(|g| allows(g, token))
    }

    /// Take `token` as the next one: the grammar (and a lazy grammar's
    /// trigger) and the chain move past it. The grammar must allow it.
    pub fn accept(&mut self, token: LlamaToken) {
        if let Some(grammar) = self.grammar.as_mut() {
            match self.waiting.as_mut() {
                None => grammar.accept(token),
                Some(waiting) => {
                    if let Some(told) = waiting.push(token) {
                        // llama.cpp's own trigger fires on the last.
                        for token in told {
                            grammar.accept(*token);
                        }
                        self.waiting = None;
                    }
                }
            }
        }
        self.chain.accept(token);
    }
}

/// A lazy grammar's trigger and where the tokens' text comes from.
struct Waiting {
    trigger: Trigger,
    model: Arc<LoadedModel>,
    /// The last token's text (its buffer, kept).
    piece: Vec<u8>,
}

impl Waiting {
    /// Follow the reply by `token`: the tokens to tell the grammar where a
    /// call starts with it.
    fn push(&mut self, token: LlamaToken) -> Option<&[LlamaToken]> {
        self.piece.clear();
        // The text llama.cpp's trigger would see (control tokens spelled).
        self.model
            .model
            .vocab()
            .token_to_piece_into(token, &mut self.piece, true, None);
        self.trigger.push(token, &self.piece)
    }
}

/// Whether `grammar` lets `token` come next: applied to candidates holding
/// that token alone, it leaves its logit finite (a lazy grammar not yet
/// triggered leaves everything).
fn allows(grammar: &mut LlamaSampler, token: LlamaToken) -> bool {
    let mut one = LlamaTokenDataArray::new(vec![LlamaTokenData::new(token, 1.0, 0.0)], false);
    grammar.apply(&mut one);
    one.data.first().is_some_and(|d| d.logit().is_finite())
}

/// Put the last decoded token's logits, the whole vocabulary in order,
/// into `candidates` (its buffer reused).
fn fill(candidates: &mut LlamaTokenDataArray, ctx: &LlamaContext<'_>) {
    candidates.data.clear();
    candidates.data.extend(
        ctx.get_logits_ith(-1)
            .iter()
            .enumerate()
            .map(|(id, logit)| LlamaTokenData::new(LlamaToken(id as i32), *logit, 0.0)),
    );
    candidates.selected = None;
    candidates.sorted = false;
}
