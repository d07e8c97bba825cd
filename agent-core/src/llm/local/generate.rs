//! One turn on a local context: render and tokenize the prompt, reuse the
//! KV cache for the prefix it shares with what is already there (or load
//! the fixed prefix from disk), evaluate the rest in chunks, then sample
//! token by token under the tool-call grammar, streaming events, until the
//! model ends, a call is complete, the budget is spent or the caller
//! cancels.

use std::{
    path::Path,
    time::{Duration, Instant},
};

use llama_cpp_2::{
    llama_batch::LlamaBatch,
    sampling::LlamaSampler,
    token::{LlamaToken, data_array::LlamaTokenDataArray, logit_bias::LlamaLogitBias},
};

use super::{
    avoid::{Avoid, Choice, call_so_far},
    grammar::{CALL_OPENER, tool_call_grammar},
    host::{BATCH, ChatContext, LoadedModel},
    loop_guard::{LoopGuard, MAX_ALTERNATIVES},
    prefix_cache,
    sampling::{GrammarOrder, Sampling, SamplingStats},
    stream::StreamSplitter,
    template::RenderedPrompt,
    trigger::{self, Trigger},
};
use crate::{
    llm::{
        ChatEvent, ChatRequest, ChatTurn, FinishReason, LlmError, ToolChoice, Usage, parse_reply,
    },
    shell::CancelToken,
};

/// How a turn samples.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnOptions {
    /// Constrain calls with the grammar (on by default; off only to
    /// measure what it buys).
    pub grammar: bool,
    /// Let the model reason in `<think>` where its template allows.
    pub think: bool,
    pub seed: u32,
    /// Where the fixed prefix's KV state is cached; `None` = no disk cache.
    pub prefix_cache: Option<std::path::PathBuf>,
    /// Reuse the KV cache between turns (off only to measure it).
    pub reuse: bool,
    /// Generate until the budget whatever the model says (benchmarks of
    /// decoding speed).
    pub ignore_eog: bool,
    /// Once the reply ends in a short unit repeated many times (`0000…`,
    /// `pip_pip_…`), take the best token that breaks the loop instead of
    /// one that continues it (see `loop_guard`). It acts on nothing else,
    /// so ordinary replies are unchanged.
    pub repetition_guard: bool,
}

impl Default for TurnOptions {
    fn default() -> Self {
        TurnOptions {
            grammar: true,
            think: false,
            seed: 0x5eed,
            prefix_cache: None,
            reuse: true,
            ignore_eog: false,
            repetition_guard: true,
        }
    }
}

/// Run one turn of `request` on `context`.
pub fn run_turn(
    context: &mut ChatContext,
    request: &ChatRequest,
    options: &TurnOptions,
    on_event: &mut dyn FnMut(ChatEvent),
    cancel: &CancelToken,
) -> Result<(ChatTurn, DecodeTiming), LlmError> {
    let order = GrammarOrder::SampleFirst;
    run_turn_in(context, request, options, order, on_event, cancel)
        .map(|(turn, sampled)| (turn, sampled.timing))
}

/// Where the time of a turn's generation loop went, token by token: each
/// generated token's whole step (choosing it, detokenizing, decoding it,
/// streaming it) and, of that, the time spent in `llama_decode`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DecodeTiming {
    pub steps: Vec<Duration>,
    pub decode: Vec<Duration>,
}

impl DecodeTiming {
    fn with_capacity(n: usize) -> DecodeTiming {
        DecodeTiming {
            steps: Vec::with_capacity(n),
            decode: Vec::with_capacity(n),
        }
    }

    /// Per token, the time spent outside `llama_decode`.
    pub fn outside(&self) -> impl Iterator<Item = Duration> + '_ {
        self.steps
            .iter()
            .zip(&self.decode)
            .map(|(step, decode)| step.saturating_sub(*decode))
    }
}

/// What a turn's sampling did: the tokens of the reply (the one that ended
/// it aside), what choosing them cost and where the loop's time went.
#[derive(Debug)]
#[cfg_attr(not(test), expect(dead_code, reason = "the tests read it"))]
pub(super) struct Sampled {
    pub tokens: Vec<LlamaToken>,
    pub stats: SamplingStats,
    pub timing: DecodeTiming,
}

/// [`run_turn`] with the grammar in `order`.
pub(super) fn run_turn_in(
    context: &mut ChatContext,
    request: &ChatRequest,
    options: &TurnOptions,
    order: GrammarOrder,
    on_event: &mut dyn FnMut(ChatEvent),
    cancel: &CancelToken,
) -> Result<(ChatTurn, Sampled), LlmError> {
    if context.model.spec.threads.is_none() {
        follow_the_load(context);
    }
    let model = context.model.clone();
    let rendered = model
        .template
        .render(&request.messages, &request.tools, options.think)
        .map_err(|e| LlmError::Backend(e.to_string()))?;
    let (tokens, prefix_len) = tokenize(&model, &context.cached, &context.cached_text, &rendered);
    let n_ctx = model.n_ctx as usize;
    if tokens.len() + 1 >= n_ctx {
        return Err(LlmError::ContextTooLong {
            message: format!(
                "the prompt is {} tokens and the context holds {n_ctx} (raise `model.context`, or start a new conversation)",
                tokens.len()
            ),
        });
    }
    // Until this turn is over, the cache's text is unknown.
    context.cached_text.clear();
    if !options.reuse {
        context.ctx.clear_kv_cache();
        context.cached.clear();
    }
    let evaluated = match evaluate_prompt(
        context,
        &tokens,
        prefix_len,
        options.prefix_cache.as_deref(),
        cancel,
    )? {
        Some(n) => n,
        None => {
            let sampled = Sampled {
                tokens: Vec::new(),
                stats: SamplingStats::default(),
                timing: DecodeTiming::default(),
            };
            return Ok((cancelled_turn(tokens.len(), 0, on_event), sampled));
        }
    };
    let budget = (request.max_tokens as usize).min(n_ctx - tokens.len() - 1);
    let in_reasoning = rendered.text.trim_end().ends_with("<think>");
    let mut reply = Reply::new(
        sampler(context, request, options, budget, order)?,
        in_reasoning,
    );
    let mut avoid = Avoid::new(&request.avoid, &request.avoid_starts, &request.tools);
    let prompt_len = context.cached.len();
    let mut batch = LlamaBatch::new(1, 1);
    let vocab = model.model.vocab();
    let mut piece = Vec::new();
    let mut finish = FinishReason::Length;
    let mut timing = DecodeTiming::with_capacity(budget.min(4096));
    while reply.tokens.len() < budget {
        let step = Instant::now();
        if cancel.is_cancelled() {
            finish = FinishReason::Cancelled;
            break;
        }
        let looping = reply.guard.looping().filter(|_| options.repetition_guard);
        let call = avoid
            .as_ref()
            .and_then(|a| call_so_far(&reply.bytes).filter(|c| a.watching(c)));
        let token = match (call, avoid.as_mut()) {
            (Some(call), Some(avoid)) => {
                let call = call.to_vec();
                match sample_avoiding(context, &mut reply, avoid, &call, looping) {
                    Choice::Take(token) => token,
                    Choice::Rewind(fork) => {
                        let fresh = sampler(context, request, options, budget, order)?;
                        if reply.rewind(context, prompt_len, fork.at, fresh) {
                            avoid.forked();
                            reply.sampler.accept(fork.token);
                            fork.token
                        } else {
                            // The cache cannot drop a suffix: only the
                            // end is guarded from here.
                            avoid.forked();
                            continue;
                        }
                    }
                }
            }
            _ => match looping {
                Some(period) => sample_breaking_loop(context, &mut reply, period),
                None => reply
                    .sampler
                    .sample(&context.ctx)
                    .ok_or_else(|| LlmError::Backend("the sampler chose no token".into()))?,
            },
        };
        if vocab.is_eog(token) && !options.ignore_eog {
            finish = FinishReason::Stop;
            break;
        }
        piece.clear();
        vocab.token_to_piece_into(token, &mut piece, true, None);
        batch.clear();
        let position = i32::try_from(context.cached.len()).unwrap_or(i32::MAX);
        batch
            .add(token, position, &[0], true)
            .map_err(|e| LlmError::Backend(format!("batch: {e}")))?;
        let decoding = Instant::now();
        context
            .ctx
            .decode(&mut batch)
            .map_err(|e| decode_error(e, n_ctx))?;
        timing.decode.push(decoding.elapsed());
        context.cached.push(token);
        reply.push(token, &piece, on_event);
        timing.steps.push(step.elapsed());
        if reply.splitter.call_closed() {
            finish = FinishReason::ToolCalls;
            break;
        }
    }
    let generated = reply.tokens.len();
    let Reply {
        bytes: reply_bytes,
        splitter,
        tokens: reply_tokens,
        sampler: sampling,
        ..
    } = reply;
    // The cache now spells the prompt and the reply (when the reply is
    // whole UTF-8: one cut mid-character cannot be matched next turn).
    if let Ok(reply) = String::from_utf8(reply_bytes) {
        context.cached_text = rendered.text.clone() + &reply;
    }
    let (mut text, held) = splitter.finish(on_event);
    if in_reasoning {
        text.insert_str(0, "<think>");
    }
    let schemas: Vec<_> = request.tools.iter().map(|t| t.schema()).collect();
    let reply = parse_reply(&text, &schemas);
    if reply.calls.is_empty() && !held.trim().is_empty() {
        on_event(ChatEvent::Text(held));
    }
    for call in &reply.calls {
        on_event(ChatEvent::ToolCall(call.clone()));
    }
    if !reply.calls.is_empty() && finish != FinishReason::Cancelled {
        finish = FinishReason::ToolCalls;
    }
    let usage = Usage {
        prompt_tokens: tokens.len() as u32,
        prompt_evaluated: evaluated as u32,
        completion_tokens: generated as u32,
    };
    on_event(ChatEvent::Usage(usage));
    on_event(ChatEvent::Finish(finish));
    let turn = ChatTurn {
        content: reply.content,
        reasoning: reply.reasoning,
        tool_calls: reply.calls,
        repair: reply.repair,
        usage,
        finish: Some(finish),
    };
    let sampled = Sampled {
        tokens: reply_tokens,
        stats: sampling.stats,
        timing,
    };
    Ok((turn, sampled))
}

/// With no `model.threads` set, decode with as many threads as there are
/// physical cores other work leaves free now: a context made for another
/// count is replaced (its cache is lost, so this happens only when the
/// load changed).
fn follow_the_load(context: &mut ChatContext) {
    let wanted = super::threads::choose();
    if wanted != context.threads
        && let Ok(fresh) = super::host::new_context_with(&context.model, wanted)
    {
        *context = fresh;
    }
}

/// Tokens of the rendered prompt and how many of them are the fixed prefix.
/// When the prompt continues the text already in the cache (the previous
/// prompt and the model's reply, as the template renders it back), the
/// cached tokens are kept as they are: the reply's tokens are not
/// re-tokenized into a different split.
pub(super) fn tokenize(
    model: &LoadedModel,
    cached: &[LlamaToken],
    cached_text: &str,
    rendered: &RenderedPrompt,
) -> (Vec<LlamaToken>, Option<usize>) {
    let vocab = model.model.vocab();
    let continues = !cached_text.is_empty() && rendered.text.starts_with(cached_text);
    let (mut tokens, from) = if continues {
        (cached.to_vec(), cached_text.len())
    } else {
        let bos = vocab.bos();
        let bos_text = String::from_utf8_lossy(&vocab.token_to_piece(bos, true, None)).into_owned();
        let add_bos = vocab.should_add_bos()
            && (bos_text.is_empty() || !rendered.text.starts_with(&bos_text));
        (if add_bos { vec![bos] } else { Vec::new() }, 0)
    };
    let mut prefix_len = None;
    for segment in &rendered.segments {
        if segment.range.end <= from {
            continue;
        }
        let start = segment.range.start.max(from);
        if from == 0 && Some(start) == rendered.prefix_end {
            prefix_len = Some(tokens.len());
        }
        let text = &rendered.text[start..segment.range.end];
        tokens.extend(vocab.tokenize(text.as_bytes(), false, segment.special));
    }
    (tokens, prefix_len)
}

/// Bring the KV cache to `tokens` (all but the last, whose logits are then
/// computed): keep the common prefix, load the fixed prefix from disk into
/// an empty cache, decode the rest. Returns how many prompt tokens were
/// evaluated, `None` when cancelled.
fn evaluate_prompt(
    context: &mut ChatContext,
    tokens: &[LlamaToken],
    prefix_len: Option<usize>,
    cache_dir: Option<&Path>,
    cancel: &CancelToken,
) -> Result<Option<usize>, LlmError> {
    let mut keep = context
        .cached
        .iter()
        .zip(tokens)
        .take_while(|(a, b)| a == b)
        .count();
    if keep == tokens.len() {
        // The last token must be decoded again to get its logits.
        keep -= 1;
    }
    if keep < context.cached.len() {
        let removed = context
            .ctx
            .clear_kv_cache_seq(Some(0), Some(keep as u32), None);
        if !matches!(removed, Ok(true)) {
            // Recurrent and hybrid models cannot drop a suffix.
            context.ctx.clear_kv_cache();
            keep = 0;
        }
        context.cached.truncate(keep);
    }
    let disk = match (cache_dir, prefix_len) {
        (Some(dir), Some(p))
            if p >= prefix_cache::MIN_PREFIX_TOKENS && p < tokens.len() && keep == 0 =>
        {
            let file = prefix_cache::file_for(dir, context, &tokens[..p]);
            if prefix_cache::load(context, &file, &tokens[..p]) {
                None
            } else {
                Some((file, p))
            }
        }
        _ => None,
    };
    let start = context.cached.len();
    let n_ctx = context.model.n_ctx as usize;
    let mut batch = LlamaBatch::new(BATCH as usize, 1);
    let mut position = start;
    while position < tokens.len() {
        if cancel.is_cancelled() {
            return Ok(None);
        }
        let mut end = (position + BATCH as usize).min(tokens.len());
        if let Some((_, p)) = &disk
            && position < *p
        {
            end = end.min(*p);
        }
        batch.clear();
        for (i, token) in tokens[position..end].iter().enumerate() {
            let at = position + i;
            batch
                .add(*token, at as i32, &[0], at + 1 == tokens.len())
                .map_err(|e| LlmError::Backend(format!("batch: {e}")))?;
        }
        context
            .ctx
            .decode(&mut batch)
            .map_err(|e| decode_error(e, n_ctx))?;
        context.cached.extend_from_slice(&tokens[position..end]);
        position = end;
        if let Some((file, p)) = &disk
            && position == *p
        {
            prefix_cache::save(context, file, &tokens[..*p]);
        }
    }
    Ok(Some(tokens.len() - start))
}

/// The samplers of a turn: the tool-call grammar (lazy, or from the first
/// token when a call is required) and the chain that chooses (greedy or
/// temperature sampling), the grammar in `order`.
fn sampler(
    context: &ChatContext,
    request: &ChatRequest,
    options: &TurnOptions,
    budget: usize,
    order: GrammarOrder,
) -> Result<Sampling, LlmError> {
    let model = &context.model.model;
    let mut constrained = None;
    let mut watch = None;
    if options.grammar && !request.tools.is_empty() && request.tool_choice != ToolChoice::None {
        let grammar = tool_call_grammar(&request.tools, budget, request.pipeline_grammar.as_ref());
        let made = if request.tool_choice == ToolChoice::Required {
            LlamaSampler::grammar(model, &grammar, "tagged")
        } else {
            let vocab = model.vocab();
            let opener = vocab.tokenize(CALL_OPENER.as_bytes(), false, true);
            // Where the opener is one token (Qwen), it triggers too.
            let trigger_tokens: Vec<LlamaToken> = if opener.len() == 1 {
                opener
            } else {
                Vec::new()
            };
            // The trigger is watched here: llama.cpp is told the reply only
            // once a call starts (see `trigger`).
            watch = Some(Trigger::new(trigger_tokens.first().copied()));
            LlamaSampler::grammar_lazy_patterns(
                model,
                &grammar,
                "root",
                &trigger::patterns(),
                &trigger_tokens,
            )
        };
        constrained =
            Some(made.map_err(|e| {
                LlmError::Backend(format!("the tool-call grammar was refused: {e}"))
            })?);
    }
    let mut chain = Vec::new();
    let mut banned = Vec::new();
    if options.ignore_eog {
        let vocab = model.vocab();
        let n_vocab = model.n_vocab();
        banned = (0..n_vocab)
            .map(LlamaToken)
            .filter(|t| vocab.is_eog(*t))
            .collect();
        let biases: Vec<LlamaLogitBias> = banned
            .iter()
            .map(|t| LlamaLogitBias::new(*t, f32::NEG_INFINITY))
            .collect();
        chain.push(LlamaSampler::logit_bias(n_vocab, &biases));
    }
    let greedy = request.temperature <= 0.0;
    if greedy {
        chain.push(LlamaSampler::greedy());
    } else {
        chain.push(LlamaSampler::top_k(40));
        chain.push(LlamaSampler::top_p(0.95, 1));
        chain.push(LlamaSampler::min_p(0.05, 1));
        chain.push(LlamaSampler::temp(request.temperature));
        chain.push(LlamaSampler::dist(options.seed));
    }
    let mut sampling = Sampling::new(constrained, LlamaSampler::chain_simple(chain), order);
    if greedy {
        // The chain is the bias and greedy alone: its choice is read off
        // the logits.
        sampling = sampling.greedy(banned);
    }
    Ok(match watch {
        Some(trigger) => sampling.watching(trigger, context.model.clone()),
        None => sampling,
    })
}

/// The reply being generated: its tokens and bytes, and the state that
/// follows them (the grammar and the sampler chain, the stream splitter,
/// the loop guard).
struct Reply {
    tokens: Vec<LlamaToken>,
    /// The length of `bytes` after each token.
    ends: Vec<usize>,
    bytes: Vec<u8>,
    sampler: Sampling,
    splitter: StreamSplitter,
    guard: LoopGuard,
    in_reasoning: bool,
}

impl Reply {
    fn new(sampler: Sampling, in_reasoning: bool) -> Reply {
        Reply {
            tokens: Vec::new(),
            ends: Vec::new(),
            bytes: Vec::new(),
            sampler,
            splitter: StreamSplitter::new(in_reasoning),
            guard: LoopGuard::default(),
            in_reasoning,
        }
    }

    /// Add a token the context has decoded (the sampler has accepted it).
    fn push(&mut self, token: LlamaToken, piece: &[u8], on_event: &mut dyn FnMut(ChatEvent)) {
        self.splitter.push(piece, on_event);
        self.bytes.extend_from_slice(piece);
        self.guard.push(piece);
        self.tokens.push(token);
        self.ends.push(self.bytes.len());
    }

    /// Take the reply (and the KV cache after the prompt's `prompt_len`
    /// tokens) back to its first `n` tokens, with `sampler` made anew and
    /// fed them. Text already shown stays shown: a fork is only ever
    /// inside a call, which is never streamed. False when the cache cannot
    /// drop a suffix (recurrent models); nothing changed then.
    fn rewind(
        &mut self,
        context: &mut ChatContext,
        prompt_len: usize,
        n: usize,
        mut sampler: Sampling,
    ) -> bool {
        let keep = prompt_len + n;
        let dropped = context
            .ctx
            .clear_kv_cache_seq(Some(0), Some(keep as u32), None);
        if !matches!(dropped, Ok(true)) {
            return false;
        }
        context.cached.truncate(keep);
        self.tokens.truncate(n);
        self.ends.truncate(n);
        self.bytes.truncate(self.ends.last().copied().unwrap_or(0));
        for token in &self.tokens {
            sampler.accept(*token);
        }
        sampler.stats = self.sampler.stats;
        self.sampler = sampler;
        self.splitter = StreamSplitter::new(self.in_reasoning);
        self.splitter.push(&self.bytes, &mut |_| {});
        self.guard = LoopGuard::default();
        self.guard.push(&self.bytes);
        true
    }
}

/// The candidates the grammar and the chain kept for the next token
/// (applied, not yet accepted) and the chain's choice.
fn candidates(
    context: &ChatContext,
    reply: &mut Reply,
) -> (LlamaTokenDataArray, Option<LlamaToken>) {
    let candidates = reply.sampler.filtered(&context.ctx);
    let selected = candidates.selected_token();
    (candidates, selected)
}

/// The `limit` best candidates that can be taken (finite logits), best
/// first, each with its logit and bytes.
fn ranked(
    context: &ChatContext,
    candidates: &LlamaTokenDataArray,
    limit: usize,
) -> Vec<(LlamaToken, f32, Vec<u8>)> {
    let mut kept: Vec<_> = candidates
        .data
        .iter()
        .filter(|d| d.logit().is_finite())
        .collect();
    let limit = limit.min(kept.len());
    if limit == 0 {
        return Vec::new();
    }
    kept.select_nth_unstable_by(limit - 1, |a, b| b.logit().total_cmp(&a.logit()));
    kept.truncate(limit);
    kept.sort_by(|a, b| b.logit().total_cmp(&a.logit()));
    kept.iter()
        .map(|d| (d.id(), d.logit(), piece_of(context, d.id())))
        .collect()
}

/// The bytes `token` adds to the reply (none for an end-of-generation
/// token).
fn piece_of(context: &ChatContext, token: LlamaToken) -> Vec<u8> {
    let vocab = context.model.model.vocab();
    let mut piece = Vec::new();
    if !vocab.is_eog(token) {
        vocab.token_to_piece_into(token, &mut piece, true, None);
    }
    piece
}

/// Sample as the chain would, but when its choice carries the loop of
/// `period` on, take the best candidate it kept that does not (its own
/// choice when none does), and accept that token into the chain.
fn sample_breaking_loop(context: &ChatContext, reply: &mut Reply, period: usize) -> LlamaToken {
    let (candidates, selected) = candidates(context, reply);
    let chosen = breaking_loop(context, reply, &candidates, selected, period);
    reply.sampler.accept(chosen);
    chosen
}

/// The chain's choice when it does not carry the loop of `period` on, else
/// the best candidate that does not.
fn breaking_loop(
    context: &ChatContext,
    reply: &Reply,
    candidates: &LlamaTokenDataArray,
    selected: Option<LlamaToken>,
    period: usize,
) -> LlamaToken {
    let vocab = context.model.model.vocab();
    let mut piece = Vec::new();
    let mut continues = |token: LlamaToken| {
        piece.clear();
        vocab.token_to_piece_into(token, &mut piece, true, None);
        !vocab.is_eog(token) && reply.guard.continues(period, &piece)
    };
    match selected {
        Some(token) if !continues(token) => token,
        selected => {
            let mut kept: Vec<_> = candidates
                .data
                .iter()
                .filter(|d| d.logit().is_finite())
                .collect();
            kept.sort_by(|a, b| b.logit().total_cmp(&a.logit()));
            kept.iter()
                .take(MAX_ALTERNATIVES)
                .map(|d| d.id())
                .find(|t| !continues(*t))
                .or(selected)
                .unwrap_or_else(|| kept.first().map_or(LlamaToken(0), |d| d.id()))
        }
    }
}

/// Sample while the reply follows a call it must not make again (see
/// `avoid`): the chain's choice (or the loop guard's), weighed against the
/// avoided calls. A token taken is accepted into the chain; a rewind is
/// left to the caller.
fn sample_avoiding(
    context: &ChatContext,
    reply: &mut Reply,
    avoid: &mut Avoid<LlamaToken>,
    call: &[u8],
    looping: Option<usize>,
) -> Choice<LlamaToken> {
    let (candidates, selected) = candidates(context, reply);
    let chosen = match looping {
        Some(period) => breaking_loop(context, reply, &candidates, selected, period),
        None => selected.unwrap_or(LlamaToken(0)),
    };
    let ranked = ranked(context, &candidates, AVOID_ALTERNATIVES);
    // The choice may lie beyond the best few (sampled warm, or the loop
    // guard's): weigh it as itself.
    let logit = candidates
        .data
        .iter()
        .find(|d| d.id() == chosen)
        .map_or(f32::INFINITY, |d| d.logit());
    let chosen = (chosen, logit, piece_of(context, chosen));
    let choice = avoid.choose(call, reply.tokens.len(), &chosen, &ranked);
    if let Choice::Take(token) = choice {
        reply.sampler.accept(token);
    }
    choice
}

/// How many of the best candidates are weighed at each token of a reply
/// that follows an avoided call.
const AVOID_ALTERNATIVES: usize = 16;

fn decode_error(e: llama_cpp_2::DecodeError, n_ctx: usize) -> LlmError {
    match e {
        llama_cpp_2::DecodeError::NoKvCacheSlot => LlmError::ContextTooLong {
            message: format!("the context of {n_ctx} tokens is full"),
        },
        other => LlmError::Backend(format!("llama.cpp decode failed: {other}")),
    }
}

fn cancelled_turn(
    prompt: usize,
    evaluated: usize,
    on_event: &mut dyn FnMut(ChatEvent),
) -> ChatTurn {
    let usage = Usage {
        prompt_tokens: prompt as u32,
        prompt_evaluated: evaluated as u32,
        completion_tokens: 0,
    };
    on_event(ChatEvent::Usage(usage));
    on_event(ChatEvent::Finish(FinishReason::Cancelled));
    ChatTurn {
        usage,
        finish: Some(FinishReason::Cancelled),
        ..ChatTurn::default()
    }
}

#[cfg(test)]
mod tests;
