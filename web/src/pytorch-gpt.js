// 18.8's character GPT in PyTorch, for its "Show as PyTorch" program (web/src/pytorch-programs.js):
// the model as nanoGPT writes it, and the parameters the page's model saved, loaded into it.
// Program text only: the numbers are in the file the page offers beside the program.
import { comment } from '../../wasm/js/pytorch-format.js';

/** The GPT's modules (nanoGPT's): the attention, the block, the model; c(en, zh) writes the comments. */
export const gptModel = (c) => `class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(C, 3 * C)                # ${c('q, k, v of every head at once', '一次算出所有头的 q、k、v')}
        self.c_proj = nn.Linear(C, C)

    def forward(self, x):
        B, T, _ = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, NH, C // NH).transpose(1, 2) for t in (q, k, v))   # (B, NH, T, hs)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        if CAUSAL:                                       # ${c('the mask (the page can switch it off)', '遮罩（页面上可以关掉）')}
            allowed = torch.ones(T, T, dtype=torch.bool).tril()
            att = att.masked_fill(~allowed, float('-inf'))
        att = att.softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return self.c_proj(y), att


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(C, eps=1e-5)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(C, eps=1e-5)
        self.mlp = nn.Sequential(nn.Linear(C, 4 * C), nn.GELU(approximate='tanh'), nn.Linear(4 * C, C))

    def forward(self, x):
        a, att = self.attn(self.ln_1(x))
        x = x + a
        x = x + self.mlp(self.ln_2(x))
        return x, att


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(V, C)                    # ${c('token embedding', '字符嵌入')}
        self.wpe = nn.Embedding(T_MAX, C)                # ${c('learned positions', '学习式位置')}
        self.h = nn.ModuleList([Block() for _ in range(L)])
        self.ln_f = nn.LayerNorm(C, eps=1e-5)
        self.lm_head = nn.Linear(C, V, bias=False)
        self.lm_head.weight = self.wte.weight            # ${c('the head shares the token embedding', '输出头与字符嵌入共享权重')}

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        maps = []
        for block in self.h:
            x, att = block(x)
            maps.append(att)
        return self.lm_head(self.ln_f(x)), maps`;

/** Its parameters: the core's flat buffer, read from the file, cut into its tensors and copied into
 * the modules (nn.Linear's weights transposed); the file must be the one saved after `step` steps. */
export const gptParameters = (c, step) => [
  comment(c('The core keeps every parameter in one flat buffer, tensor after tensor, weights in math layout',
    '内核把全部参数按张量依次放在一个扁平数组里，权重是数学布局'),
  c('(in, out): y = x W + b. nn.Linear stores (out, in), hence the transposes.', '(in, out)：y = x W + b。nn.Linear 存的是 (out, in)，所以要转置。')),
  `flat, P, at = torch.tensor(saved['params']), {}, 0
for name, shape in [('wte', (V, C)), ('wpe', (T_MAX, C)), ('ln1w', (L, C)), ('ln1b', (L, C)),
                    ('qkvw', (L, C, 3 * C)), ('qkvb', (L, 3 * C)), ('attprojw', (L, C, C)), ('attprojb', (L, C)),
                    ('ln2w', (L, C)), ('ln2b', (L, C)), ('fcw', (L, C, 4 * C)), ('fcb', (L, 4 * C)),
                    ('fcprojw', (L, 4 * C, C)), ('fcprojb', (L, C)), ('lnfw', (C,)), ('lnfb', (C,))]:
    P[name] = flat[at:at + math.prod(shape)].view(shape)
    at += math.prod(shape)
assert at == flat.numel() and saved['step'] == ${step}
model = GPT()
with torch.no_grad():
    model.wte.weight.copy_(P['wte'])
    model.wpe.weight.copy_(P['wpe'])
    for l, b in enumerate(model.h):
        b.ln_1.weight.copy_(P['ln1w'][l])
        b.ln_1.bias.copy_(P['ln1b'][l])
        b.attn.c_attn.weight.copy_(P['qkvw'][l].T)
        b.attn.c_attn.bias.copy_(P['qkvb'][l])
        b.attn.c_proj.weight.copy_(P['attprojw'][l].T)
        b.attn.c_proj.bias.copy_(P['attprojb'][l])
        b.ln_2.weight.copy_(P['ln2w'][l])
        b.ln_2.bias.copy_(P['ln2b'][l])
        b.mlp[0].weight.copy_(P['fcw'][l].T)
        b.mlp[0].bias.copy_(P['fcb'][l])
        b.mlp[2].weight.copy_(P['fcprojw'][l].T)
        b.mlp[2].bias.copy_(P['fcprojb'][l])
    model.ln_f.weight.copy_(P['lnfw'])
    model.ln_f.bias.copy_(P['lnfb'])
model.eval()`].join('\n');
