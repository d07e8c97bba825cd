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
//!
//! A greedy chain (see [`Sampling::greedy`]) chooses without copying the
//! vocabulary at all: its choice, the first token of the highest logit
//! (end-of-generation tokens left out when they are banned), is found in
//! the logits where llama.cpp left them, which is what its greedy sampler
//! would choose from the copied candidates.

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
    /// Where the chain is greedy: the tokens it bans (their logits biased
    /// to minus infinity), sorted.
    greedy: Option<Vec<LlamaToken>>,
    /// The candidates' buffer, kept between tokens.
    candidates: LlamaTokenDataArray,
    /// A one-candidate buffer for the grammar's checks, kept.
    one: LlamaTokenDataArray,
    pub stats: SamplingStats,
}

impl Sampling {
    pub fn new(grammar: Option<LlamaSampler>, chain: LlamaSampler, order: GrammarOrder) -> Self {
        Sampling {
            grammar,
            waiting: None,
            chain,
            order,
            greedy: None,
            candidates: LlamaTokenDataArray::new(Vec::new(), false),
            one: LlamaTokenDataArray::new(Vec::with_capacity(1), false),
            stats: SamplingStats::default(),
        }
    }

    /// The chain is greedy, after a logit bias of minus infinity on
    /// `banned` (none: plain greedy): its choice is read off the logits.
    /// Its samplers must be exactly those, or the choices differ.
    pub fn greedy(mut self, mut banned: Vec<LlamaToken>) -> Self {
        banned.sort_unstable();
        self.greedy = Some(banned);
        self
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
        if let Some(banned) = &self.greedy
            && self.order == GrammarOrder::SampleFirst
        {
            let token = greedy_choice(ctx.get_logits_ith(-1), banned);
            // A lazy grammar still waiting filters nothing.
            let allowed = self.waiting.is_some()
                || match self.grammar.as_mut() {
                    None => true,
                    Some(grammar) => allows(grammar, &mut self.one, token),
                };
            if allowed {
                self.accept(token);
                return Some(token);
            }
        }
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
        if self.order == GrammarOrder::SampleFirst
            && !token.is_some_and(|t| allows(grammar, &mut self.one, t))
        {
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
        let one = &mut self.one;
        self.grammar.as_mut().is_none_or(|g| allows(g, one, token))
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
/// triggered leaves everything). `one` is the buffer it uses.
fn allows(grammar: &mut LlamaSampler, one: &mut LlamaTokenDataArray, token: LlamaToken) -> bool {
    one.data.clear();
    one.data.push(LlamaTokenData::new(token, 1.0, 0.0));
    one.selected = None;
    one.sorted = false;
    grammar.apply(one);
    one.data.first().is_some_and(|d| d.logit().is_finite())
}

/// What llama.cpp's greedy sampler chooses from the whole vocabulary with
/// `logits`, after a logit bias of minus infinity on `banned` (sorted): the
/// first token of the highest logit (token 0 when none is above minus
/// infinity). The highest value is found first, in a pass the compiler
/// vectorizes, then its first token that is not banned.
pub(super) fn greedy_choice(logits: &[f32], banned: &[LlamaToken]) -> LlamaToken {
    let is_banned = |i: usize| banned.binary_search(&LlamaToken(i as i32)).is_ok();
    let top = highest(logits);
    // A NaN first logit is never beaten.
    let first_nan = logits.first().is_some_and(|l| l.is_nan()) && !is_banned(0);
    if top > f32::NEG_INFINITY
        && !first_nan
        && let Some(i) = logits
            .iter()
            .enumerate()
            .filter(|(_, l)| **l == top)
            .map(|(i, _)| i)
            .find(|i| !is_banned(*i))
    {
        return LlamaToken(i as i32);
    }
    // The best are banned (or nothing is finite): the greedy sampler's
    // own walk over the biased logits.
    let biased = |i: usize| {
        if is_banned(i) {
            f32::NEG_INFINITY
        } else {
            logits[i]
        }
    };
    let mut selected = 0;
    for i in 1..logits.len() {
        // (A NaN is never above anything, nor anything above it.)
        if biased(i) > biased(selected) {
            selected = i;
        }
    }
    LlamaToken(selected as i32)
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

/// The highest of `logits` (NaNs ignored; minus infinity when empty), in
/// eight lanes so that the loop is vectorized.
fn highest(logits: &[f32]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 8];
    let chunks = logits.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (lane, &l) in lanes.iter_mut().zip(chunk) {
            *lane = if l > *lane { l } else { *lane };
        }
    }
    lanes
        .iter()
        .chain(rest)
        .fold(f32::NEG_INFINITY, |a, &b| if b > a { b } else { a })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// llama.cpp's greedy sampler over the logits biased to minus infinity
    /// on `banned`.
    fn reference(logits: &[f32], banned: &[LlamaToken]) -> LlamaToken {
        let biased: Vec<f32> = logits
            .iter()
            .enumerate()
            .map(|(i, l)| {
                if banned.contains(&LlamaToken(i as i32)) {
                    f32::NEG_INFINITY
                } else {
                    *l
                }
            })
            .collect();
        let mut selected = 0;
        for i in 1..biased.len() {
            if biased[i] > biased[selected] {
                selected = i;
            }
        }
        LlamaToken(selected as i32)
    }

    #[test]
    fn the_greedy_choice_is_the_greedy_samplers() {
        // A small generator: the same cases every run.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for case in 0..500 {
            let n = 1 + (next() % 70) as usize;
            // Few distinct values: ties are common.
            let mut logits: Vec<f32> = (0..n).map(|_| (next() % 5) as f32 - 2.0).collect();
            if case % 7 == 0 {
                logits[(next() % n as u64) as usize] = f32::NAN;
            }
            if case % 11 == 0 {
                logits.iter_mut().for_each(|l| *l = f32::NEG_INFINITY);
            }
            if case % 13 == 0 {
                logits[0] = f32::NAN;
            }
            let mut banned: Vec<LlamaToken> = (0..next() % 4)
                .map(|_| LlamaToken((next() % n as u64) as i32))
                .collect();
            banned.sort_unstable();
            banned.dedup();
            assert_eq!(
                greedy_choice(&logits, &banned),
                reference(&logits, &banned),
                "{logits:?} banned {banned:?}"
            );
        }
    }

    #[test]
    fn every_best_token_banned_falls_to_the_next_best() {
        let logits = [1.0, 5.0, 3.0, 5.0, 3.0];
        let banned = [LlamaToken(1), LlamaToken(3)];
        assert_eq!(greedy_choice(&logits, &banned), LlamaToken(2));
        assert_eq!(greedy_choice(&logits, &[]), LlamaToken(1));
    }
}
