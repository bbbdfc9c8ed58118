"""A GPT-2-architecture causal language model over bytes: token and position
embeddings, pre-LN blocks of causal self-attention and a tanh-GELU MLP, a
final layer norm, and a head tied to the token embedding, trained by AdamW
(no weight decay on biases, norms and embeddings' position table).

Written for the importer's torch.fx tracing: shapes are indexed, not
unpacked (fx cannot iterate a traced shape); sequences are the full context,
so the position table is one (context, dim) parameter added to every
sequence and the causal mask is built in forward from the context
(torch.tril of constants; fx cannot pass a traced size to torch.ones); the
attention reshapes heads to (batch*heads, T, head) for 3-d matmuls; and the
logits and targets come flat, (batch*T, vocab) and (batch*T), as
cross-entropy takes them.
"""

import math

import torch
import torch.nn as nn


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, heads, context):
        super().__init__()
        self.heads = heads
        self.context = context
        self.query = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)

    def split(self, x, batch, steps):
        head = x.shape[-1] // self.heads
        x = x.view(batch, steps, self.heads, head).transpose(1, 2)
        return x.reshape(batch * self.heads, steps, head)

    def forward(self, x):
        batch, steps, dim = x.shape[0], x.shape[1], x.shape[2]
        q = self.split(self.query(x), batch, steps)
        k = self.split(self.key(x), batch, steps)
        v = self.split(self.value(x), batch, steps)
        scores = (q @ k.transpose(1, 2)) * (1.0 / math.sqrt(dim // self.heads))
        causal = torch.tril(torch.ones(self.context, self.context, dtype=torch.bool))
        scores = scores.masked_fill(~causal, float("-inf"))
        y = torch.softmax(scores, dim=-1) @ v
        y = y.view(batch, self.heads, steps, dim // self.heads).transpose(1, 2)
        return self.proj(y.reshape(batch, steps, dim))


class Block(nn.Module):
    def __init__(self, dim, heads, context):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads, context)
        self.ln2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU(approximate="tanh")
        self.out = nn.Linear(4 * dim, dim)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.out(self.act(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, vocab=256, context=64, dim=128, heads=4, layers=2):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Parameter(torch.zeros(context, dim))
        self.blocks = nn.ModuleList(Block(dim, heads, context) for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.lm_head.weight = self.wte.weight
        for name, parameter in self.named_parameters():
            if parameter.dim() == 2:
                nn.init.normal_(parameter, std=0.02)

    def forward(self, idx):
        batch, steps = idx.shape[0], idx.shape[1]
        x = self.wte(idx) + self.wpe
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return logits.view(batch * steps, -1)


def make_optimizer(model, lr=3e-3):
    decay = [p for n, p in model.named_parameters()
             if p.dim() == 2 and not n.startswith("wpe")]
    no_decay = [p for n, p in model.named_parameters()
                if not (p.dim() == 2 and not n.startswith("wpe"))]
    return torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                              {"params": no_decay, "weight_decay": 0.0}],
                             lr=lr, betas=(0.9, 0.95))


def mpt_model(batch=16, seed=0, context=64):
    torch.manual_seed(seed)
    model = GPT(context=context)
    return {"model": model,
            "inputs": torch.zeros(batch, context, dtype=torch.int64),
            "target": torch.zeros(batch * context, dtype=torch.int64),
            "optimizer": make_optimizer(model)}
