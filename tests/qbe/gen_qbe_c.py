#!/usr/bin/env python3
"""Random programs written twice, as QBE IL and as C, for a differential
test of `keel import-qbe` + `keel run` against the system's cc.

    gen_qbe_c.py SEED SIZE OUT        writes OUT.ssa and OUT.c
    gen_qbe_c.py --multi SIZE DIR SEED...
        writes DIR/SEED.ssa for each seed and one DIR/all.c holding every
        program's C (names prefixed), whose `all SEED` runs that one

Both forms print the same lines and return the same value from main; the
C's main also prints that value on a line of its own, as `keel run` does.
Only behaviour both languages define is generated: unsigned wrap-around
(w is uint32_t, l uint64_t), divisors made nonzero and positive, shift
amounts masked as QBE takes them, floats converted back to integers only
where they fit, memory accessed inside its object (little-endian bytes
through memcpy on the C side).

The QBE side is written the way front ends write it: temporaries assigned
many times (not SSA), some first assigned inside a nested region; loops
with counters in three shapes (test at the top, test at the bottom
reached by falling through, counting down with jnz on the counter), an
irreducible loop (two blocks, each entered from outside: gotos in the
C), if/else diamonds, breaks out of loops, early rets, blocks that fall
through, jnz to one block both ways; phis at joins (parallel, reading
long values as words) and two phis that swap values round a loop; a
function whose first block is its loop head (jumps back to the entry,
which QBE itself refuses and keel takes: docs/qbe.md);
calls forward and backward in the text, through a temporary holding
$f and through a table of function addresses in data; sub-word (sb ub
sh uh) parameters and results, each side extending them; printf with
`...`; data with strings (with escapes), integers, z and $sym + offset;
alloc4/8/16 with constant and computed sizes; every load and store width,
s and d included; blit; extensions; comparisons of every kind; float
arithmetic, conversions both ways, cast, exts/truncd, NaN compared;
long values read as words; s_/d_ constants where an integer is wanted
(their bits) and integers where a float is; dbgfile, dbgloc, comments.
Every call of a function with a result names one, as QBE's reference
requires.

Aggregates by value (docs/qbe.md), as C structs and unions by value: up
to three `type :tN` (fields b h w l s d, arrays `w 3`, earlier types
nested, unions of two or three members, `align N`), laid out alike on
both sides (QBE's rules are C's on x86-64; C gets `_Alignas(N)` on its
first member where N is more than that member's own alignment); :T
parameters and results; in each function a local aggregate of every
type and maybe a second (alloc4/8/16 by the type's alignment, every
field set); fields read and written at their offsets (every width, s
and d through stosi and swtof), struct assignment by blit, the callee
changing its copy and the caller printing its own afterwards; a result
blitted at once into a variable of its type, or a field read where it
is; `ret` of a parameter or a local; direct and indirect calls. A
union is read and written through one member (its active one, fixed
per type); another member is written whole, read, and the active one
written whole again, so C reads only the member last written.

Variadic functions of the file, with <stdarg.h> on the C side: vastart
on alloc8/16 24, then, in a prologue before the body, `vaarg` of w, l
and d (C's va_arg of W, L and double: an s would be a double in C's
`...`, so none is passed), the values printed; some read their first
arguments twice, first from a copy (blit of 24 bytes: va_copy); some
read `p0` arguments of one type in a loop (as sum(n, ...)); some hand
the va_list as `l %ap` to a helper (C: a va_list parameter) that reads
on, maybe from a copy of its own first, and may hand it on again.
Callers pass what is read and sometimes one argument more; d arguments
are constants or small integers converted; a direct call with nothing
after the fixed arguments may leave out the `...`, an indirect one
never.
"""
import random
import struct
import sys

M32 = 0xffffffff
M64 = (1 << 64) - 1
WCONST = [0, 1, 2, 3, -1, -2, 7, 8, 31, 32, 33, 63, 64, 127, 128, 255, 256,
          65535, 65536, 0x7fffffff, -0x80000000, 0x80000000, 4294967295,
          4294967297, 0x123456789, -1000, 100000]
LCONST = [0, 1, 2, -1, -2, 31, 32, 63, 64, 65, 255, 4294967295, 4294967296,
          0x7fffffffffffffff, -0x7fffffffffffffff, 0x100000001, -4294967296,
          0x123456789abcdef, 1000000007]


FSIZE = {'b': 1, 'h': 2, 'w': 4, 'l': 8, 's': 4, 'd': 8}
CFIELD = {'b': 'uint8_t', 'h': 'uint16_t', 'w': 'uint32_t', 'l': 'uint64_t', 's': 'float',
          'd': 'double'}
FLITS = ['1.5', '-2', '0.25', '100', '3', '-7.5']


def isagg(t):
    return isinstance(t, Agg)


def qty(t):
    return ':' + t.name if isagg(t) else t


def cty(t):
    if isagg(t):
        return t.cname
    return 'W' if t == 'w' else 'L'


def cflit(k, ft):
    """a float literal of FLITS in C"""
    return (k if '.' in k else k + '.0') + ('f' if ft == 's' else '')


def sty(t):
    return 'int32_t' if t == 'w' else 'int64_t'


def bits(t):
    return 32 if t == 'w' else 64


def clit(v, t):
    if t == 'w':
        return '0x%xu' % (v & M32)
    return '0x%xull' % (v & M64)


PRELUDE = r'''#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
typedef uint32_t W;
typedef uint64_t L;
static L ld_sb(const void *p) { int8_t v; memcpy(&v, p, 1); return (L)(int64_t)v; }
static L ld_ub(const void *p) { uint8_t v; memcpy(&v, p, 1); return v; }
static L ld_sh(const void *p) { int16_t v; memcpy(&v, p, 2); return (L)(int64_t)v; }
static L ld_uh(const void *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static L ld_sw(const void *p) { int32_t v; memcpy(&v, p, 4); return (L)(int64_t)v; }
static L ld_uw(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static L ld_l(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static void st_b(void *p, L x) { uint8_t v = (uint8_t)x; memcpy(p, &v, 1); }
static void st_h(void *p, L x) { uint16_t v = (uint16_t)x; memcpy(p, &v, 2); }
static void st_w(void *p, L x) { uint32_t v = (uint32_t)x; memcpy(p, &v, 4); }
static void st_l(void *p, L x) { memcpy(p, &x, 8); }
static W divw(W a, W b) { return (W)((int32_t)a / (int32_t)b); }
static W remw(W a, W b) { return (W)((int32_t)a % (int32_t)b); }
static L divl(L a, L b) { return (L)((int64_t)a / (int64_t)b); }
static L reml(L a, L b) { return (L)((int64_t)a % (int64_t)b); }
static W castsw(float f) { W w; memcpy(&w, &f, 4); return w; }
static L castdl(double f) { L w; memcpy(&w, &f, 8); return w; }
static double dzero = 0.0;
'''


def unescape(s):
    """the bytes of a QBE string's text (the assembler's escapes)"""
    out = []
    i = 0
    while i < len(s):
        if s[i] != '\\':
            out.append(ord(s[i]))
            i += 1
            continue
        c = s[i + 1]
        if c in 'nt\\"':
            out.append({'n': 10, 't': 9, '\\': 92, '"': 34}[c])
            i += 2
        elif c == 'x':
            out.append(int(s[i + 2:i + 4], 16))
            i += 4
        else:
            out.append(int(s[i + 1:i + 4], 8))
            i += 4
    return out


class Agg:
    """an aggregate type: a struct (one member) or a union (several), each
    member a list of fields (kind, count), a kind one of b h w l s d or an
    Agg; laid out as QBE does, which is C's layout on x86-64"""
    def __init__(self, name, cname, members, align, union, active):
        self.name = name        # QBE name without :
        self.cname = cname      # 'struct NAME' or 'union NAME'
        self.union = union
        self.align = align      # an explicit align N, or None
        self.active = active    # the member of a union read and written
        self.members = []       # [[(kind, count, offset)]]
        al, end = align or 1, 0
        for m in members:
            off, fl = 0, []
            for k, n in m:
                a = k.al if isagg(k) else FSIZE[k]
                al = max(al, a)
                off = (off + a - 1) // a * a
                fl.append((k, n, off))
                off += n * (k.size if isagg(k) else FSIZE[k])
            self.members.append(fl)
            end = max(end, off)
        self.al = al
        self.size = (end + al - 1) // al * al

    def slots(self, cpath, off, member=None):
        """the scalar fields at off on: (C lvalue, offset, kind), through
        the active member of each union (or the given member of this one)"""
        mi = self.active if member is None else member
        pre = cpath + ('.m%d' % mi if self.union else '')
        out = []
        for j, (k, n, foff) in enumerate(self.members[mi]):
            for e in range(n):
                p = '%s.f%d%s' % (pre, j, '[%d]' % e if n > 1 else '')
                o = off + foff + e * (k.size if isagg(k) else FSIZE[k])
                out += k.slots(p, o) if isagg(k) else [(p, o, k)]
        return out

    def unions(self, cpath, off):
        """the unions in it, through active members: (Agg, C lvalue, offset)"""
        out = [(self, cpath, off)] if self.union else []
        pre = cpath + ('.m%d' % self.active if self.union else '')
        for j, (k, n, foff) in enumerate(self.members[self.active]):
            if isagg(k):
                for e in range(n):
                    out += k.unions('%s.f%d%s' % (pre, j, '[%d]' % e if n > 1 else ''),
                                    off + foff + e * k.size)
        return out

    def qdef(self, r):
        def fl(m):
            return ', '.join(qty(k) + (' %d' % n if n > 1 or r.random() < .1 else '')
                             for k, n, _ in m)
        body = ' '.join('{ %s }' % fl(m) for m in self.members) if self.union \
            else fl(self.members[0])
        return 'type :%s = %s{ %s }' % (self.name, 'align %d ' % self.align if self.align else '',
                                        body)

    def cdef(self):
        def fl(m, ind):
            return ['%s%s f%d%s;' % (ind, k.cname if isagg(k) else CFIELD[k], j,
                                     '[%d]' % n if n > 1 else '')
                    for j, (k, n, _) in enumerate(m)]
        lines = [self.cname + ' {']
        if self.union:
            for i, m in enumerate(self.members):
                lines += ['    struct {'] + fl(m, '        ') + ['    } m%d;' % i]
            first = max(k.al if isagg(k) else FSIZE[k] for k, _, _ in self.members[0])
        else:
            lines += fl(self.members[0], '    ')
            k = self.members[0][0][0]
            first = k.al if isagg(k) else FSIZE[k]
        # C refuses an alignment below the member's own: QBE takes the
        # larger, so only a larger one is written
        if self.align and self.align > first:
            lines[1] = '    _Alignas(%d) %s' % (self.align, lines[1][4:])
        return lines + ['};']


class Func:
    def __init__(self, name, cname, params, ret, idx):
        self.name = name        # QBE name without $
        self.cname = cname
        self.params = params    # [(name, type)], a type 'w', 'l' or an Agg
        self.ret = ret          # 'w', 'l' or an Agg
        self.abi = {}           # a parameter's or the result's ('') sub-word type
        self.idx = idx
        self.cost = 0
        self.variadic = False
        self.vcount = None      # the one type of p0 variadic arguments
        self.vtypes = []        # the types it reads itself, in order
        self.vcopy = 0          # how many of them it reads first from a copy
        self.helper = None      # the function it hands its va_list to
        self.vall = []          # the types of all it and its helpers read

    def qhead(self, export):
        return '%sfunction %s $%s(%s) {' % (
            'export ' if export else '', qty(self.abi.get('', self.ret)), self.name,
            ', '.join(['%s %%%s' % (qty(self.abi.get(p, t)), p) for p, t in self.params] +
                      (['...'] if self.variadic else [])))

    def csig(self):
        return 'static %s %s(%s)' % (cty(self.ret), self.cname, ', '.join(
            ['%s %s' % (cty(t), p) for p, t in self.params] +
            (['...'] if self.variadic else [])) or 'void')


class Gen:
    def __init__(self, seed, size, prefix=''):
        self.r = random.Random(seed * 1000003 + size)
        self.size = size
        self.P = prefix
        self.dataq = []
        self.datac = []
        self.cinit = []
        self.nfmt = 0
        self.cfuncs = []
        self.qfuncs = []

    # ---------------------------------------------------------------
    # data
    def gen_data(self):
        r = self.r
        self.objs = {}     # name -> (size, writable ranges start)
        self.ptrs = []     # (obj, off, target, toff)
        # a string, read-only
        s = ''.join(r.choice('abcdefghijklmnopqrstuvwxyz XYZ') for _ in range(r.randint(1, 12)))
        self.add_data('str0', [('b', s), ('b', [0])], None, False)
        self.strlen0 = len(s)
        # two writable objects of mixed fields
        self.add_data('g0', self.rand_items(0), None, True)
        np = r.randint(1, 2)
        items = []
        for _ in range(np):
            tgt = r.choice(['g0', 'str0'])
            tsize = self.objs[tgt][0]
            toff = r.randint(0, max(0, tsize - 8)) if tgt == 'g0' else 0
            items.append(('p', (tgt, toff)))
        items += self.rand_items(1)
        self.add_data('g1', items, None, True, protect=8 * np)

    def rand_items(self, k):
        r = self.r
        items = []
        for _ in range(r.randint(2, 5 + k)):
            kind = r.choice('bhwlzs')
            if kind == 'z':
                items.append(('z', r.randint(1, 6)))
            elif kind == 's':
                items.append(('b', ''.join(r.choice(['p', 'q', 'r', 's', '\\t', '\\\\', '\\"',
                                                     '\\101', '\\x7f', '\\n'])
                                           for _ in range(r.randint(1, 5)))))
            else:
                items.append((kind, [r.choice(LCONST + WCONST) for _ in range(r.randint(1, 3))]))
        return items

    def add_data(self, name, items, align, writable, protect=0):
        r = self.r
        img = []
        qparts = []
        for kind, v in items:
            if kind == 'z':
                img += [0] * v
                qparts.append('z %d' % v)
            elif kind == 'p':
                tgt, toff = v
                self.ptrs.append((name, len(img), tgt, toff))
                img += [0] * 8
                qparts.append('l $%s + %d' % (tgt, toff) if toff or r.random() < .5
                              else 'l $%s' % tgt)
            elif isinstance(v, str):
                img += unescape(v)
                qparts.append('b "%s"' % v)
            else:
                w = {'b': 1, 'h': 2, 'w': 4, 'l': 8}[kind]
                for x in v:
                    x &= (1 << (8 * w)) - 1
                    img += [(x >> (8 * i)) & 255 for i in range(w)]
                qparts.append('%s %s' % (kind, ' '.join(str(self.sval(x, kind)) for x in v)))
        al = r.choice(['', 'align 1 ', 'align 4 ', 'align 8 ', 'align 16 '])
        self.dataq.append('data $%s = %s{ %s }' % (name, al, ', '.join(qparts)))
        self.datac.append('static unsigned char %s%s[%d] = { %s };' % (
            self.P, name, len(img), ', '.join(str(b) for b in img)))
        self.objs[name] = (len(img), protect, writable)

    def sval(self, x, kind):
        # a constant in a data field, in the field's range, signed or not
        nb = 8 * {'b': 1, 'h': 2, 'w': 4, 'l': 8}[kind]
        x &= (1 << nb) - 1
        if x >= 1 << (nb - 1) and (kind == 'l' or self.r.random() < .5):
            x -= 1 << nb
        return x

    # ---------------------------------------------------------------
    # emission helpers
    def newlab(self, base='b'):
        self.f_nlab += 1
        return '%s%d' % (base, self.f_nlab)

    def label(self, lab):
        if self.pending is not None:
            if not (self.pending == lab and self.r.random() < .5):
                self.q.append('\tjmp @%s' % self.pending)
            self.pending = None
        self.q.append('@%s' % lab)
        self.cur = lab

    def ins(self, s):
        if self.cur is None:
            self.label(self.newlab('dead'))
        x = self.r.random()
        if x < .02:
            self.q.append('\tdbgloc %d' % self.r.randint(1, 999))
        elif x < .03:
            s += '  # ' + self.r.choice(['note', 'x = y;', '{ }'])
        self.q.append('\t' + s)

    def jmp(self, lab):
        if self.cur is None:
            self.label(self.newlab('dead'))
        self.pending = lab
        self.cur = None

    def term(self, s):
        self.ins(s)
        self.cur = None

    def open_block(self):
        if self.cur is None:
            self.label(self.newlab('dead'))

    def c(self, s):
        self.cl.append('    ' * self.ind + s)

    # ---------------------------------------------------------------
    # operands: ('v', name, type) or ('k', value)
    def operand(self, t, allow_const=True):
        """an operand read in a context of type t: a var of that type, a
        long var read as a word, or a constant"""
        r = self.r
        x = r.random()
        if allow_const and x < .02:
            # QBE: an s_ constant in a w context, or d_ in l, is its bits
            f = r.choice(['1.5', '-2', '0.25', '100'])
            if t == 'w':
                return ('k', struct.unpack('<I', struct.pack('<f', float(f)))[0], 's_' + f)
            return ('k', struct.unpack('<Q', struct.pack('<d', float(f)))[0], 'd_' + f)
        if allow_const and x < .25:
            return ('k', r.choice(WCONST if t == 'w' else LCONST) if r.random() < .7
                    else r.randint(-(1 << (bits(t) - 1)), (1 << (bits(t) - 1)) - 1))
        if t == 'w' and x < .4:
            v = r.choice([v for v in self.readable if v[1] == 'l'])
        else:
            v = r.choice([v for v in self.readable if v[1] == t])
        return ('v', v[0], v[1])

    def q_op(self, o):
        if o[0] == 'v':
            return '%' + o[1]
        return o[2] if len(o) > 2 else str(o[1])

    def c_op(self, o, t):
        if o[0] == 'k':
            return clit(o[1], t)
        if o[2] == t:
            return o[1]
        assert t == 'w' and o[2] == 'l'
        return '(W)' + o[1]

    # ---------------------------------------------------------------
    def gen_program(self):
        r = self.r
        self.gen_data()
        self.gen_types()
        self.gen_helpers()
        n = r.randint(1, 2 + self.size)
        funcs = []
        for i in range(n):
            params = [('p%d' % j, r.choice(self.types) if self.types and r.random() < .25
                       else r.choice('wl')) for j in range(r.randint(0, 3))]
            ret = r.choice(self.types) if self.types and r.random() < .2 else r.choice('wl')
            g = Func('f%d' % i, self.P + 'f%d' % i, params, ret, i)
            # sub-word parameters and results (QBE: words whose high bits
            # the other side ignores; each side extends them itself)
            for p, t in params:
                if t == 'w' and r.random() < .2:
                    g.abi[p] = r.choice(['sb', 'ub', 'sh', 'uh'])
            if g.ret == 'w' and r.random() < .15:
                g.abi[''] = r.choice(['sb', 'ub', 'sh', 'uh'])
            if r.random() < .25:
                self.make_variadic(g)
            funcs.append(g)
        self.funcs = funcs
        # only the helpers some function hands its va_list to
        used = set()
        for h in [g.helper for g in funcs]:
            while h and h.name not in used:
                used.add(h.name)
                h = h.helper
        self.helpers = [h for h in self.helpers if h.name in used]
        mainf = Func('main', self.P + 'qmain', [], 'w', n)
        bodies = [self.gen_helper(h) for h in self.helpers]
        for f in funcs:
            bodies.append(self.gen_func(f, 400 * (1 + self.size)))
        mbody = self.gen_func(mainf, 20000, is_main=True)
        if n:
            self.dataq.append('data $ftab = { l %s }' % ' '.join('$' + g.name for g in funcs))
        allb = bodies + [mbody]
        order = list(range(len(allb)))
        r.shuffle(order)
        q = ['dbgfile "gen.c"'] if r.random() < .3 else []
        q += [t.qdef(r) for t in self.types]
        datas = list(self.dataq)
        for i in order:
            q += allb[i][0]
            q.append('')
            if datas and r.random() < .4:
                q.append(datas.pop())
        q += datas
        cdecl = ['static L %s(va_list ap);' % h.cname for h in self.helpers]
        cdecl += [f.csig() + ';' for f in funcs + [mainf]]
        c = self.datac + [ln for t in self.types for ln in t.cdef()] + cdecl
        for b in allb:
            c += b[1]
        for obj, off, tgt, toff in self.ptrs:
            self.cinit.append('st_l(%s%s + %d, (L)(uintptr_t)(%s%s + %d));' % (
                self.P, obj, off, self.P, tgt, toff))
        c.append('static int %srun(void)\n{' % self.P)
        c += ['    ' + s for s in self.cinit]
        c.append('    W r = %s();' % mainf.cname)
        c.append('    printf("%d\\n", (int32_t)r);')
        c.append('    return (int)r;')
        c.append('}')
        return '\n'.join(q) + '\n', '\n'.join(c) + '\n'

    # ---------------------------------------------------------------
    # aggregate types and variadic functions
    def gen_types(self):
        """0 to 3 aggregate types, each of at most 10 scalar fields"""
        r = self.r
        self.types = []
        for i in range(r.choice([0, 1, 1, 2, 2, 3])):
            for _ in range(10):
                t = self.new_type(i)
                if len(t.slots('', 0)) <= 10:
                    break
            else:
                continue
            self.types.append(t)

    def new_type(self, i):
        r = self.r
        union = r.random() < .3

        def fields(most):
            out = []
            for _ in range(r.randint(1, most)):
                if self.types and r.random() < .25:
                    out.append((r.choice(self.types), r.choice([1, 1, 2])))
                else:
                    out.append((r.choice('bhwlsd'), r.choice([1, 1, 1, 2, 3])))
            return out
        members = [fields(3) for _ in range(r.randint(2, 3))] if union else [fields(5)]
        return Agg('t%d' % i, '%s %st%d' % ('union' if union else 'struct', self.P, i), members,
                   r.choice([None, None, None, 1, 4, 8, 16]), union,
                   r.randrange(len(members)))

    def gen_helpers(self):
        """functions taking a va_list (as vprintf) and reading on: each
        reads its own types, from a copy first if vcopy, then may hand the
        va_list to the one before it"""
        r = self.r
        self.helpers = []
        for i in range(r.choice([0, 1, 1, 2])):
            h = Func('vh%d' % i, self.P + 'vh%d' % i, [('ap', 'l')], 'l', -1)
            h.vtypes = [r.choice('wld') for _ in range(r.randint(1, 3))]
            h.helper = self.helpers[-1] if self.helpers and r.random() < .5 else None
            h.vcopy = r.random() < .3
            h.vall = h.vtypes + (h.helper.vall if h.helper else [])
            self.helpers.append(h)

    def make_variadic(self, g):
        r = self.r
        g.variadic = True
        if not g.params:
            # C wants a named parameter before the ...
            g.params.append(('p0', 'w'))
        if r.random() < .3:
            # p0 says how many arguments of one type follow, as in sum(n, ...)
            g.vcount = r.choice('wld')
            g.params[0] = ('p0', 'w')
            g.abi.pop('p0', None)
            return
        g.vtypes = [r.choice('wwlld') for _ in range(r.randint(0, 3))]
        if g.vtypes and r.random() < .3:
            g.vcopy = r.randint(1, len(g.vtypes))
        if self.helpers and r.random() < .5:
            g.helper = r.choice(self.helpers)
        g.vall = g.vtypes + (g.helper.vall if g.helper else [])

    def gen_helper(self, h):
        r = self.r
        k = r.choice(LCONST)
        q = ['function l $%s(l %%ap) {' % h.name, '@start', '\t%%hr =l copy %d' % k]
        c = ['static L %s(va_list ap)\n{' % h.cname,
             '    L hr = %s, hx = 0;' % clit(k, 'l'), '    double hd = 0;', '    va_list hc;',
             '    (void)hd; (void)hc;']

        def rd(t, qap, cap):
            if t == 'w':
                e = r.choice(['sw', 'uw'])
                q.extend(['\t%%hw =w vaarg %s' % qap, '\t%%hx =l ext%s %%hw' % e])
                c.append('    hx = %s;' % self.c_ext(e, 'l', 'va_arg(%s, W)' % cap))
            elif t == 'l':
                q.append('\t%%hx =l vaarg %s' % qap)
                c.append('    hx = va_arg(%s, L);' % cap)
            else:
                q.extend(['\t%%hd =d vaarg %s' % qap, '\t%hx =l dtosi %hd'])
                c.extend(['    hd = va_arg(%s, double);' % cap, '    hx = (L)(int64_t)hd;'])
            q.extend(['\t%hr =l mul %hr, 31', '\t%hr =l add %hr, %hx'])
            c.append('    hr = hr * 31 + hx;')
        if h.vcopy:
            # va_copy, the copy read on its own
            q.extend(['\t%hc =l alloc8 24', '\tblit %ap, %hc, 24'])
            c.append('    va_copy(hc, ap);')
            rd(h.vtypes[0], '%hc', 'hc')
            c.append('    va_end(hc);')
        for t in h.vtypes:
            rd(t, '%ap', 'ap')
        if h.helper:
            if r.random() < .3:
                q.extend(['\t%%hx =l copy $%s' % h.helper.name, '\t%hx =l call %hx(l %ap)'])
            else:
                q.append('\t%%hx =l call $%s(l %%ap)' % h.helper.name)
            q.append('\t%hr =l xor %hr, %hx')
            c.append('    hr = hr ^ %s(ap);' % h.helper.cname)
        q.extend(['\tret %hr', '}'])
        c.extend(['    return hr;', '}'])
        return q, c

    def va_prologue(self, f):
        """vastart, then the reads of f's variadic arguments, all before its
        body: into variables, from a copy (va_copy), in a loop of p0 (vcount),
        and by a helper handed the va_list"""
        r = self.r
        self.ins('%%ap =l %s 24' % r.choice(['alloc8', 'alloc16']))
        self.ins('vastart %ap')
        self.c('va_start(ap, %s);' % f.params[-1][0])
        if f.vcount:
            h, b, x = self.newlab(), self.newlab(), self.newlab()
            self.ins('%vn =w copy %p0')
            self.ins('%vs =l copy 0')
            self.c('vs = 0;')
            self.jmp(h)
            self.label(h)
            self.term('jnz %%vn, @%s, @%s' % (b, x))
            self.label(b)
            self.c('for (vn = p0; vn != 0; vn--) {')
            self.ind += 1
            t = f.vcount
            if t == 'w':
                e = r.choice(['sw', 'uw'])
                self.ins('%vxw =w vaarg %ap')
                self.ins('%%vx =l ext%s %%vxw' % e)
                self.c('vx = %s;' % self.c_ext(e, 'l', 'va_arg(ap, W)'))
            elif t == 'l':
                self.ins('%vx =l vaarg %ap')
                self.c('vx = va_arg(ap, L);')
            else:
                self.ins('%fad =d vaarg %ap')
                self.ins('%vx =l dtosi %fad')
                self.c('fad = va_arg(ap, double);')
                self.c('vx = (L)(int64_t)fad;')
            self.ins('%vs =l mul %vs, 31')
            self.ins('%vs =l add %vs, %vx')
            self.ins('%vn =w sub %vn, 1')
            self.c('vs = vs * 31 + vx;')
            self.jmp(h)
            self.ind -= 1
            self.c('}')
            self.label(x)
            d = self.dst('l')[0]
            self.ins('%%%s =l copy %%vs' % d)
            self.c('%s = vs;' % d)
            self.c('va_end(ap);')
            self.print_vals('va', [(d, 'l')])
            return
        if f.vcopy:
            self.ins('%cp =l alloc8 24')
            self.ins('blit %ap, %cp, 24')
            self.c('va_copy(cp, ap);')
            got = [self.va_read(t, 'cp') for t in f.vtypes[:f.vcopy]]
            self.c('va_end(cp);')
            self.print_vals('vc', got)
        got = []
        for t in f.vtypes:
            got.append(self.va_read(t, 'ap'))
        if f.helper:
            d = self.dst('l')[0]
            self.ins('%%%s =l call $%s(l %%ap)' % (d, f.helper.name))
            self.c('%s = %s(ap);' % (d, f.helper.cname))
            got.append((d, 'l'))
        self.c('va_end(ap);')
        self.print_vals('va', got)

    def va_read(self, t, ap):
        """a variadic argument read into a variable: returns it, or None
        when printed"""
        if t in 'wl':
            d = self.dst(t)[0]
            self.ins('%%%s =%s vaarg %%%s' % (d, t, ap))
            self.c('%s = va_arg(%s, %s);' % (d, ap, cty(t)))
            return d, t
        self.ins('%%fad =d vaarg %%%s' % ap)
        self.c('fad = va_arg(%s, double);' % ap)
        if self.r.random() < .3:
            self.fprint('fad', 'd')
            return None
        t = self.r.choice('wl')
        d = self.dst(t)[0]
        self.ins('%%%s =%s dtosi %%fad' % (d, t))
        self.c('%s = (%s)(%s)fad;' % (d, cty(t), sty(t)))
        return d, t

    def varg(self, t):
        """a variadic argument of type t: its QBE and its C"""
        if t in 'wl':
            o = self.operand(t)
            return '%s %s' % (t, self.q_op(o)), '(%s)%s' % (cty(t), self.c_op(o, t))
        if self.nvd < 4 and self.r.random() < .5:
            # computed: an integer that fits, converted
            o = self.operand('w', allow_const=False)
            v = 'vd%d' % self.nvd
            self.nvd += 1
            self.ins('%%fi =w and %s, 32767' % self.q_op(o))
            self.c('fi = %s & 32767;' % self.c_op(o, 'w'))
            self.ins('%%%s =d swtof %%fi' % v)
            self.c('%s = (double)(int32_t)fi;' % v)
            return 'd %' + v, v
        k = self.r.choice(FLITS)
        return 'd d_' + k, cflit(k, 'd')

    def agg_addr(self, qbase, off):
        if off == 0:
            return qbase
        self.ins('%%ad =l add %s, %d' % (qbase, off))
        return '%ad'

    def agg_read(self, qbase, slot):
        """a field read into a variable: returns it, or None when printed"""
        r = self.r
        cp, off, k = slot
        qa = self.agg_addr(qbase, off)
        if k in 'sd':
            fv = 'fas' if k == 's' else 'fad'
            self.ins('%%%s =%s load%s %s' % (fv, k, k, qa))
            self.c('%s = %s;' % (fv, cp))
            if r.random() < .3 and self.mult <= 8:
                self.fprint(fv, k)
                return None
            t = r.choice('wl')
            d = self.dst(t)[0]
            self.ins('%%%s =%s %stosi %%%s' % (d, t, k, fv))
            self.c('%s = (%s)(%s)%s;' % (d, cty(t), sty(t), fv))
            return d, t
        t = r.choice('wl')
        if k in 'bh':
            e = r.choice(['s', 'u']) + k
            op, ce = 'load' + e, self.c_ext(e, t, cp)
        elif k == 'w' and t == 'w' or k == 'l' and t == 'w':
            op, ce = r.choice(['loadw', 'loadsw', 'loaduw']), '(W)' + cp
        elif k == 'w':
            e = r.choice(['sw', 'uw'])
            op, ce = 'load' + e, self.c_ext(e, t, cp)
        else:
            op, ce = 'loadl', cp
        d = self.dst(t)[0]
        self.ins('%%%s =%s %s %s' % (d, t, op, qa))
        self.c('%s = %s;' % (d, ce))
        return d, t

    def agg_write(self, qbase, slot, const=False):
        r = self.r
        cp, off, k = slot
        if k in 'sd':
            if const or r.random() < .5:
                f = r.choice(FLITS)
                qa = self.agg_addr(qbase, off)
                self.ins('store%s %s_%s, %s' % (k, k, f, qa))
                self.c('%s = %s;' % (cp, cflit(f, k)))
                return
            o = self.operand('w', allow_const=False)
            m = 0xfff if k == 's' else 0x7fff
            fv = 'fas' if k == 's' else 'fad'
            self.ins('%%fi =w and %s, %d' % (self.q_op(o), m))
            self.c('fi = %s & %d;' % (self.c_op(o, 'w'), m))
            self.ins('%%%s =%s swtof %%fi' % (fv, k))
            self.c('%s = (%s)(int32_t)fi;' % (fv, 'float' if k == 's' else 'double'))
            qa = self.agg_addr(qbase, off)
            self.ins('store%s %%%s, %s' % (k, fv, qa))
            self.c('%s = %s;' % (cp, fv))
            return
        t = 'l' if k == 'l' else 'w'
        if const:
            o = ('k', r.choice(LCONST if t == 'l' else WCONST))
        else:
            o = self.operand(t)
        qa = self.agg_addr(qbase, off)
        self.ins('store%s %s, %s' % (k, self.q_op(o), qa))
        self.c('%s = (%s)%s;' % (cp, CFIELD[k], self.c_op(o, t)))

    def print_vals(self, what, vals):
        """variables [(name, type)] printed, after what="""
        vals = [v for v in vals if v is not None]
        if not vals or self.mult > 8:
            return
        self.cost += self.mult * 5
        text = '%s: %s=%s\\n' % (self.f.name, what,
                                  ' '.join('%u' if t == 'w' else '%lu' for _, t in vals))
        fmt = self.new_fmt(text)
        self.ins('%%pr =w call $printf(l $%s, ..., %s)' % (
            fmt, ', '.join('%s %%%s' % (t, d) for d, t in vals)))
        self.c('pr = (W)printf("%s", %s);' % (text, ', '.join(
            '(%s)%s' % ('uint32_t' if t == 'w' else 'unsigned long', d) for d, t in vals)))

    def agg_print(self, a):
        """a field of aggregate variable a, printed"""
        if self.mult <= 8:
            self.print_vals(a[0], [self.agg_read('%' + a[0], self.r.choice(a[1].slots(a[0], 0)))])

    def s_agg(self):
        r = self.r
        a = r.choice(self.aggs)
        q, T = '%' + a[0], a[1]
        x = r.random()
        same = [b for b in self.aggs if b[1] is T and b != a]
        us = T.unions(a[0], 0)
        if x < .35:
            self.agg_read(q, r.choice(T.slots(a[0], 0)))
        elif x < .45:
            self.agg_print(a)
        elif x < .8 or x < .9 and not same or not us:
            self.agg_write(q, r.choice(T.slots(a[0], 0)))
        elif x < .9:
            # struct assignment
            b = r.choice(same)
            self.ins('blit %s, %%%s, %d' % (q, b[0], T.size))
            self.c('%s = %s;' % (b[0], a[0]))
        else:
            # another member of a union: all its fields written, one read
            # back, then the active member's written again
            u, cp, off = r.choice(us)
            m = r.choice([i for i in range(len(u.members)) if i != u.active])
            sl = u.slots(cp, off, m)
            for s in sl:
                self.agg_write(q, s)
            self.agg_read(q, r.choice(sl))
            for s in u.slots(cp, off):
                self.agg_write(q, s)

    def gen_func(self, f, budget, is_main=False):
        r = self.r
        self.f = f
        self.q = []
        self.cl = []
        self.ind = 1
        self.f_nlab = 0
        self.pending = None
        self.cur = None
        self.budget = budget
        self.mult = 1
        self.nloop = 0
        self.nscoped = 0
        self.loops = []
        self.noexit = 0
        self.is_main = is_main
        self.depth = 0
        params = [(p, t) for p, t in f.params if not isagg(t)]
        locs = [('v%d' % i, r.choice('wl')) for i in range(r.randint(2, 5))]
        locs += [('vw', 'w'), ('vl', 'l')]
        self.vars = params + locs
        self.readable = list(self.vars)
        # aggregate variables: the parameters, a local of each type and
        # maybe a second (each a :T temporary, the address of its memory)
        alocs = [('a%d' % i, t) for i, t in enumerate(self.types)]
        if self.types and r.random() < .3:
            alocs.append(('a%d' % len(alocs), r.choice(self.types)))
        self.aggs = [(p, t) for p, t in f.params if isagg(t)] + alocs
        self.q.append(f.qhead(is_main or r.random() < .3))
        cdecls = []
        # (p0 of a vcount function says how many arguments to read: it
        # must not change before they are read again)
        entry_loop = (not is_main) and not f.vcount and r.random() < .2
        if entry_loop:
            it = ('it', 'w')
            self.f.params.append(it)
            self.q[0] = f.qhead(r.random() < .3)
            self.readable.append(it)
            self.mult = 8
        self.label('start')
        cdecls += ['%s %s = 0;' % (cty(t), v) for v, t in locs]
        cdecls += ['W dvw = 0, fi = 0, bw = 0, pr = 0; L dvl = 0, ad = 0, fl = 0, bl = 0;',
                   'double fad = 0, fbd = 0, frd = 0; float fas = 0, fbs = 0, frs = 0;',
                   'unsigned char buf[64], dbuf[16];', '(void)dvw; (void)dvl; (void)ad; (void)fi; (void)fl;',
                   '(void)fad; (void)fbd; (void)frd; (void)fas; (void)fbs; (void)frs; (void)bw; (void)bl; (void)pr;']
        cdecls += ['%s %s;' % (t.cname, v) for v, t in alocs]
        cdecls += ['%s rv_%s; (void)rv_%s;' % (t.cname, t.name, t.name) for t in self.types]
        cdecls += ['W vn = 0; L vs = 0, vx = 0; double vd0 = 0, vd1 = 0, vd2 = 0, vd3 = 0;',
                   '(void)vn; (void)vs; (void)vx; (void)vd0; (void)vd1; (void)vd2; (void)vd3;']
        if f.variadic:
            cdecls += ['va_list ap, cp;']
        if entry_loop:
            self.c('do {')
            self.ind += 1
        for p, a in f.abi.items():
            if p:
                self.ins('%%%s =w ext%s %%%s' % (p, a, p))
                self.c('%s = %s;' % (p, self.c_ext(a, 'w', p)))
        # locals and the buffer
        for v, t in locs:
            k = r.choice(WCONST if t == 'w' else LCONST)
            self.ins('%%%s =%s copy %d' % (v, t, k))
            self.c('%s = %s;' % (v, clit(k, t)))
        al = r.choice(['alloc4', 'alloc8', 'alloc16'])
        self.ins('%%buf =l %s 64' % al)
        for o in range(0, 64, 8):
            k = r.choice(LCONST)
            self.ins('storel %d, %s' % (k, '%buf' if o == 0 else self.addr_const('buf', o)))
            self.c('st_l(buf + %d, %s);' % (o, clit(k, 'l')))
        self.cost = 20 * self.mult
        # the local aggregates, every field set; the callee changes its
        # copies of aggregate parameters (the caller's stay as they were)
        for v, t in alocs:
            al = r.choice([a for a in ['alloc4', 'alloc8', 'alloc16'] if int(a[5:]) >= t.al] or
                          ['alloc16'])
            self.ins('%%%s =l %s %d' % (v, al, t.size))
            for sl in t.slots(v, 0):
                self.agg_write('%' + v, sl, const=True)
        for p, t in self.aggs[:len(self.aggs) - len(alocs)]:
            if r.random() < .6:
                self.agg_write('%' + p, r.choice(t.slots(p, 0)))
        if f.variadic:
            self.va_prologue(f)
        nst = r.randint(3, 6 + 3 * self.size)
        if is_main:
            for g in self.funcs:
                for _ in range(r.randint(1, 2)):
                    self.s_call(force=g, consts=True)
                    self.s_print()
        self.block(nst)
        if entry_loop:
            self.ins('%it =w sub %it, 1')
            self.ins('%itm =w and %it, 7')
            nx = self.newlab()
            self.term('jnz %%itm, @start, @%s' % nx)
            self.label(nx)
            self.ind -= 1
            self.c('it = it - 1;')
            self.c('} while (it & 7);')
        qo, co = self.ret_operand()
        self.term('ret %s' % qo)
        self.c('return %s;' % co)
        self.q.append('}')
        f.cost = self.cost
        c = [f.csig() + '\n{']
        c += ['    ' + d for d in cdecls]
        c += self.cl
        c.append('}')
        return self.q, c

    def ret_operand(self):
        if isagg(self.f.ret):
            a = self.r.choice([a for a in self.aggs if a[1] is self.f.ret])
            return '%' + a[0], a[0]
        o = self.operand(self.f.ret)
        return self.q_op(o), self.c_op(o, self.f.ret)

    def addr_const(self, base, off):
        self.ins('%%ad =l add %%%s, %d' % (base, off))
        return '%ad'

    # ---------------------------------------------------------------
    def block(self, n):
        for _ in range(n):
            self.stmt()

    def stmt(self):
        r = self.r
        ch = [('arith', 30), ('mem', 10), ('glob', 5), ('float', 5),
              ('call', 6), ('print', 3), ('blit', 1), ('dynalloc', 1), ('same', 1)]
        if self.aggs:
            ch.append(('agg', 6))
        if self.depth < 1 + self.size // 2:
            ch += [('if', 5), ('ifelse', 5), ('phi', 4), ('loop', 5), ('swap', 2), ('irr', 2)]
        if self.loops and not self.noexit:
            ch.append(('break', 2))
        if not self.noexit:
            ch.append(('ret', 1))
        ch.append(('hlt', 1))
        tot = sum(w for _, w in ch)
        x = r.uniform(0, tot)
        for name, w in ch:
            x -= w
            if x <= 0:
                break
        self.cost += self.mult * 3
        getattr(self, 's_' + name)()

    def dst(self, t):
        return self.r.choice([v for v in self.vars if v[1] == t])

    def s_arith(self):
        r = self.r
        t = r.choice('wl')
        d = self.dst(t)[0]
        T = cty(t)
        kind = r.choice(['bin'] * 6 + ['shift'] * 2 + ['div'] * 2 + ['cmp'] * 3 + ['ext'] * 2 +
                        ['copy', 'neg'])
        if kind == 'bin':
            op = r.choice(['add', 'sub', 'mul', 'and', 'or', 'xor'])
            a, b = self.operand(t), self.operand(t)
            sym = {'add': '+', 'sub': '-', 'mul': '*', 'and': '&', 'or': '|', 'xor': '^'}[op]
            self.ins('%%%s =%s %s %s, %s' % (d, t, op, self.q_op(a), self.q_op(b)))
            self.c('%s = (%s)(%s %s %s);' % (d, T, self.c_op(a, t), sym, self.c_op(b, t)))
        elif kind == 'shift':
            op = r.choice(['shl', 'shr', 'sar'])
            a, b = self.operand(t), self.operand('w')
            m = bits(t) - 1
            self.ins('%%%s =%s %s %s, %s' % (d, t, op, self.q_op(a), self.q_op(b)))
            if op == 'shl':
                e = '%s << (%s & %d)' % (self.c_op(a, t), self.c_op(b, 'w'), m)
            elif op == 'shr':
                e = '%s >> (%s & %d)' % (self.c_op(a, t), self.c_op(b, 'w'), m)
            else:
                e = '(%s)%s >> (%s & %d)' % (sty(t), self.c_op(a, t), self.c_op(b, 'w'), m)
            self.c('%s = (%s)(%s);' % (d, T, e))
        elif kind == 'div':
            op = r.choice(['div', 'rem', 'udiv', 'urem'])
            a = self.operand(t)
            if r.random() < .3:
                k = r.choice([1, 2, 3, 7, 10, 16, 255, 1000, -2, -3, -7, -1000])
                if op in ('udiv', 'urem') and r.random() < .3:
                    k = -1
                bq, bc = str(k), clit(k, t)
            else:
                dv = 'dv' + t
                m = r.choice([0xff, 0xffff, 0x7fffffff] + ([0x7fffffffffffffff] if t == 'l' else []))
                if op in ('udiv', 'urem') and r.random() < .5:
                    m = (1 << bits(t)) - 1
                b = self.operand(t)
                self.ins('%%%s =%s and %s, %d' % (dv, t, self.q_op(b), m if m < 1 << 63 else -1))
                self.ins('%%%s =%s or %%%s, 1' % (dv, t, dv))
                self.c('%s = (%s & %s) | 1;' % (dv, self.c_op(b, t), clit(m, t)))
                bq, bc = '%' + dv, dv
            self.ins('%%%s =%s %s %s, %s' % (d, t, op, self.q_op(a), bq))
            if op == 'div':
                e = 'div%s(%s, %s)' % (t, self.c_op(a, t), bc)
            elif op == 'rem':
                e = 'rem%s(%s, %s)' % (t, self.c_op(a, t), bc)
            else:
                e = '(%s)(%s %s %s)' % (T, self.c_op(a, t), '/' if op == 'udiv' else '%', bc)
            self.c('%s = %s;' % (d, e))
        elif kind == 'cmp':
            ot = r.choice('wl')
            cc = r.choice(['eq', 'ne', 'slt', 'sle', 'sgt', 'sge', 'ult', 'ule', 'ugt', 'uge'])
            a, b = self.operand(ot), self.operand(ot)
            self.ins('%%%s =%s c%s%s %s, %s' % (d, t, cc, ot, self.q_op(a), self.q_op(b)))
            self.c('%s = %s;' % (d, self.c_cmp(cc, ot, self.c_op(a, ot), self.c_op(b, ot))))
        elif kind == 'ext':
            ops = ['extsb', 'extub', 'extsh', 'extuh'] + (['extsw', 'extuw'] if t == 'l' else [])
            op = r.choice(ops)
            a = self.operand('w')
            ct = {'sb': 'int8_t', 'ub': 'uint8_t', 'sh': 'int16_t', 'uh': 'uint16_t',
                  'sw': 'int32_t', 'uw': 'uint32_t'}[op[3:]]
            self.ins('%%%s =%s %s %s' % (d, t, op, self.q_op(a)))
            if ct[0] == 'i':
                self.c('%s = (%s)(%s)(%s)%s;' % (d, T, sty(t), ct, self.c_op(a, 'w')))
            else:
                self.c('%s = (%s)(%s)%s;' % (d, T, ct, self.c_op(a, 'w')))
        elif kind == 'copy':
            a = self.operand(t)
            self.ins('%%%s =%s copy %s' % (d, t, self.q_op(a)))
            self.c('%s = %s;' % (d, self.c_op(a, t)))
        else:
            a = self.operand(t)
            self.ins('%%%s =%s neg %s' % (d, t, self.q_op(a)))
            self.c('%s = (%s)(0 - %s);' % (d, T, self.c_op(a, t)))

    def c_cmp(self, cc, ot, a, b):
        sym = {'eq': '==', 'ne': '!=', 'lt': '<', 'le': '<=', 'gt': '>', 'ge': '>='}
        if cc in ('eq', 'ne'):
            return '(%s == %s)' % (a, b) if cc == 'eq' else '(%s != %s)' % (a, b)
        if cc[0] == 's':
            return '((%s)%s %s (%s)%s)' % (sty(ot), a, sym[cc[1:]], sty(ot), b)
        return '(%s %s %s)' % (a, sym[cc[1:]], b)

    # a condition for jnz: a comparison into a word, or any var (a long:
    # its low 32 bits)
    def cond(self):
        r = self.r
        if r.random() < .6:
            ot = r.choice('wl')
            cc = r.choice(['eq', 'ne', 'slt', 'sle', 'sgt', 'sge', 'ult', 'ule', 'ugt', 'uge'])
            a, b = self.operand(ot, allow_const=False), self.operand(ot)
            self.ins('%%bw =w c%s%s %s, %s' % (cc, ot, self.q_op(a), self.q_op(b)))
            self.c('bw = %s;' % self.c_cmp(cc, ot, self.c_op(a, ot), self.c_op(b, ot)))
            return '%bw', 'bw'
        if r.random() < .5:
            v = self.r.choice([v for v in self.readable if v[1] == 'w'])
            return '%' + v[0], v[0]
        v = self.r.choice([v for v in self.readable if v[1] == 'l'])
        return '%' + v[0], '(W)' + v[0]

    # ---------------------------------------------------------------
    # memory
    def addr_dyn(self, width):
        """an address in buf: a constant offset, or a value's low bits"""
        r = self.r
        if r.random() < .3:
            o = r.randint(0, 64 - width)
            if o == 0 and r.random() < .5:
                return '%buf', 'buf'
            return self.addr_const('buf', o), 'buf + %d' % o
        x = self.operand('l' if r.random() < .5 else 'w', allow_const=False)
        if x[2] == 'w':
            self.ins('%%ad =l extuw %s' % self.q_op(x))
            self.ins('%ad =l and %ad, 31')
        else:
            self.ins('%%ad =l and %s, 31' % self.q_op(x))
        self.ins('%ad =l add %buf, %ad')
        return '%ad', 'buf + (%s & 31)' % x[1]

    LOADS = {'w': ['loadsb', 'loadub', 'loadsh', 'loaduh', 'loadw', 'loadsw', 'loaduw'],
             'l': ['loadsb', 'loadub', 'loadsh', 'loaduh', 'loadsw', 'loaduw', 'loadl']}
    LWIDTH = {'b': 1, 'h': 2, 'w': 4, 'l': 8}

    def load(self, qaddr, caddr, op, t):
        d = self.dst(t)[0]
        self.ins('%%%s =%s %s %s' % (d, t, op, qaddr))
        fn = {'loadsb': 'sb', 'loadub': 'ub', 'loadsh': 'sh', 'loaduh': 'uh', 'loadw': 'sw',
              'loadsw': 'sw', 'loaduw': 'uw', 'loadl': 'l'}[op]
        self.c('%s = (%s)ld_%s(%s);' % (d, cty(t), fn, caddr))

    def store(self, qaddr, caddr, wc):
        t = 'l' if wc == 'l' else 'w'
        v = self.operand(t)
        self.ins('store%s %s, %s' % (wc, self.q_op(v), qaddr))
        self.c('st_%s(%s, %s);' % (wc, caddr, self.c_op(v, t)))

    def s_mem(self):
        r = self.r
        if r.random() < .5:
            wc = r.choice('bhwl')
            qa, ca = self.addr_dyn(self.LWIDTH[wc])
            self.store(qa, ca, wc)
        else:
            t = r.choice('wl')
            op = r.choice(self.LOADS[t])
            w = {'b': 1, 'h': 2, 'w': 4, 's': 4, 'u': 4, 'l': 8}[op[-1]]
            qa, ca = self.addr_dyn(w)
            self.load(qa, ca, op, t)

    def s_glob(self):
        r = self.r
        t = r.choice('wl')
        x = r.random()
        if x < .3 and self.ptrs:
            # a pointer read from data, then an access through it
            obj, off, tgt, toff = r.choice(self.ptrs)
            tsize = self.objs[tgt][0]
            if off == 0 and r.random() < .5:
                self.ins('%%ad =l loadl $%s' % obj)
            else:
                self.ins('%%ad =l add $%s, %d' % (obj, off))
                self.ins('%ad =l loadl %ad')
            self.c('ad = ld_l(%s%s + %d);' % (self.P, obj, off))
            ops = [o for o in self.LOADS[t] if toff + self.LWIDTH.get(o[-1], 4) <= tsize]
            op = r.choice(ops)
            w = self.LWIDTH.get(op[-1], 4)
            c = r.randint(0, tsize - toff - w)
            if c:
                self.ins('%%ad =l add %%ad, %d' % c)
            if tgt == 'g0' and r.random() < .3:
                wc = r.choice([k for k in 'bhwl' if toff + c + self.LWIDTH[k] <= tsize])
                self.store('%ad', '(unsigned char *)(uintptr_t)ad + %d' % c, wc)
            else:
                self.load('%ad', '(unsigned char *)(uintptr_t)ad + %d' % c, op, t)
            return
        obj = r.choice(['g0', 'g1', 'str0'])
        size, prot, wr = self.objs[obj]
        if wr and r.random() < .5:
            wc = r.choice([k for k in 'bhwl' if prot + self.LWIDTH[k] <= size] or ['b'])
            if prot + self.LWIDTH[wc] > size:
                return
            o = r.randint(prot, size - self.LWIDTH[wc])
            qa = '$' + obj if o == 0 else self.addr_const_sym(obj, o)
            self.store(qa, '%s%s + %d' % (self.P, obj, o), wc)
        else:
            ops = [o for o in self.LOADS[t] if prot + self.LWIDTH.get(o[-1], 4) <= size]
            if not ops:
                return
            op = r.choice(ops)
            w = self.LWIDTH.get(op[-1], 4)
            if prot + w > size:
                return
            o = r.randint(prot, size - w)
            qa = '$' + obj if o == 0 else self.addr_const_sym(obj, o)
            self.load(qa, '%s%s + %d' % (self.P, obj, o), op, t)

    def addr_const_sym(self, obj, o):
        self.ins('%%ad =l add $%s, %d' % (obj, o))
        return '%ad'

    def s_dynalloc(self):
        r = self.r
        x = self.operand('l' if r.random() < .5 else 'w', allow_const=False)
        if x[2] == 'w':
            self.ins('%%bl =l extuw %s' % self.q_op(x))
            self.ins('%bl =l and %bl, 7')
        else:
            self.ins('%%bl =l and %s, 7' % self.q_op(x))
        self.ins('%bl =l add %bl, 8')
        self.ins('%%dp =l %s %%bl' % r.choice(['alloc4', 'alloc8', 'alloc16']))
        v = self.operand('l')
        self.ins('storel %s, %%dp' % self.q_op(v))
        self.c('st_l(dbuf, %s);' % self.c_op(v, 'l'))
        op = r.choice(self.LOADS['w'])
        self.load('%dp', 'dbuf', op, 'w')

    def s_same(self):
        # jnz to one block both ways, and a phi there naming its one
        # predecessor
        qc, cc = self.cond()
        j = self.newlab()
        p = self.cur
        self.term('jnz %s, @%s, @%s' % (qc, j, j))
        self.label(j)
        t = self.r.choice('wl')
        d = self.dst(t)
        v = self.operand(t)
        self.ins('%%%s =%s phi @%s %s' % (d[0], t, p, self.q_op(v)))
        self.c('%s = %s;' % (d[0], self.c_op(v, t)))

    def s_blit(self):
        r = self.r
        o1, o2, n = r.randint(0, 8), r.randint(0, 8), r.randint(1, 24)
        self.ins('%%bl =l add %%buf, %d' % o1)
        self.ins('%%ad =l add %%buf, %d' % (32 + o2))
        self.ins('blit %%bl, %%ad, %d' % n)
        self.c('memcpy(buf + %d, buf + %d, %d);' % (32 + o2, o1, n))

    # ---------------------------------------------------------------
    # floats: small integers in, exact or correctly rounded arithmetic,
    # back to integers only where the value fits
    def s_float(self):
        r = self.r
        ft = r.choice('sd')
        FT = 'float' if ft == 's' else 'double'
        m = 0x7fff if ft == 'd' else 0xfff
        fa, fb, fr = 'fa' + ('d' if ft == 'd' else 's'), 'fb' + ('d' if ft == 'd' else 's'), \
            'fr' + ('d' if ft == 'd' else 's')
        op = r.choice(['add', 'sub', 'mul', 'div'])

        def conv(dst, nonzero):
            if r.random() < .5:
                x = self.operand('w', allow_const=False)
                self.ins('%%fi =w and %s, %d' % (self.q_op(x), m))
                self.c('fi = %s & %d;' % (self.c_op(x, 'w'), m))
                if nonzero:
                    self.ins('%fi =w or %fi, 1')
                    self.c('fi = fi | 1;')
                cv = r.choice(['swtof', 'uwtof'])
                self.ins('%%%s =%s %s %%fi' % (dst, ft, cv))
                self.c('%s = (%s)(%s)fi;' % (dst, FT, 'int32_t' if cv == 'swtof' else 'uint32_t'))
            else:
                x = self.operand('l', allow_const=False)
                self.ins('%%fl =l and %s, %d' % (self.q_op(x), m))
                self.c('fl = %s & %d;' % (self.c_op(x, 'l'), m))
                if nonzero:
                    self.ins('%fl =l or %fl, 1')
                    self.c('fl = fl | 1;')
                cv = r.choice(['sltof', 'ultof'])
                self.ins('%%%s =%s %s %%fl' % (dst, ft, cv))
                self.c('%s = (%s)(%s)fl;' % (dst, FT, 'int64_t' if cv == 'sltof' else 'uint64_t'))
        conv(fa, False)
        if r.random() < .3:
            k = r.choice(['0.5', '1.5', '2', '3.25', '64', '0.125', '10'])
            if r.random() < .2:
                # an integer where a float is wanted: its bits
                bitsv = struct.unpack('<I', struct.pack('<f', float(k)))[0] if ft == 's' \
                    else struct.unpack('<Q', struct.pack('<d', float(k)))[0]
                self.ins('%%%s =%s copy %d' % (fb, ft, bitsv))
            else:
                self.ins('%%%s =%s copy %s_%s' % (fb, ft, ft, k))
            self.c('%s = %s%s;' % (fb, k if '.' in k else k + '.0', 'f' if ft == 's' else ''))
        else:
            conv(fb, op == 'div')
        self.ins('%%%s =%s %s %%%s, %%%s' % (fr, ft, op, fa, fb))
        self.c('%s = %s %s %s;' % (fr, fa, {'add': '+', 'sub': '-', 'mul': '*', 'div': '/'}[op], fb))
        t = r.choice('wl')
        d = self.dst(t)[0]
        T = cty(t)
        x = r.random()
        if x < .35:
            self.ins('%%%s =%s %stosi %%%s' % (d, t, ft, fr))
            self.c('%s = (%s)(%s)%s;' % (d, T, sty(t), fr))
        elif x < .5 and op != 'sub':
            self.ins('%%%s =%s %stoui %%%s' % (d, t, ft, fr))
            self.c('%s = (%s)%s;' % (d, T, fr))
        elif x < .75:
            cc = r.choice(['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'o', 'uo'])
            other = fa
            if r.random() < .25:
                # a NaN: 0/0
                zq = '%s_0' % ft
                self.ins('%%%s =%s div %s, %s' % (fb, ft, zq, zq))
                self.c('%s = (%s)(dzero / dzero);' % (fb, FT))
                other = fb
            a, b = (fr, other) if r.random() < .5 else (other, fr)
            self.ins('%%%s =%s c%s%s %%%s, %%%s' % (d, t, cc, ft, a, b))
            if cc == 'o':
                e = '(%s == %s && %s == %s)' % (a, a, b, b)
            elif cc == 'uo':
                e = '(%s != %s || %s != %s)' % (a, a, b, b)
            else:
                e = '(%s %s %s)' % (a, {'eq': '==', 'ne': '!=', 'lt': '<', 'le': '<=', 'gt': '>',
                                        'ge': '>='}[cc], b)
            self.c('%s = (%s)%s;' % (d, T, e))
        elif x < .8:
            # through memory: the float stored, read back as its bits or
            # as a float
            qa, ca = self.addr_dyn(8)
            self.ins('store%s %%%s, %s' % (ft, fr, qa))
            self.c('memcpy(%s, &%s, %d);' % (ca, fr, 4 if ft == 's' else 8))
            if r.random() < .5:
                self.load(qa, ca, 'loadl' if ft == 'd' else r.choice(['loadw', 'loaduw']),
                          'l' if ft == 'd' else 'w')
            else:
                self.ins('%%%s =%s load%s %s' % (fa, ft, ft, qa))
                self.c('memcpy(&%s, %s, %d);' % (fa, ca, 4 if ft == 's' else 8))
                self.fprint(fa, ft)
        elif x < .88:
            if ft == 's':
                self.ins('%%fad =d exts %%%s' % fr)
                self.c('fad = (double)%s;' % fr)
                self.ins('%%%s =%s dtosi %%fad' % (d, t))
                self.c('%s = (%s)(%s)fad;' % (d, T, sty(t)))
            else:
                self.ins('%%fas =s truncd %%%s' % fr)
                self.c('fas = (float)%s;' % fr)
                self.ins('%%%s =%s stosi %%fas' % (d, t))
                self.c('%s = (%s)(%s)fas;' % (d, T, sty(t)))
        else:
            # the bits
            bt = 'w' if ft == 's' else 'l'
            d = self.dst(bt)[0]
            self.ins('%%%s =%s cast %%%s' % (d, bt, fr))
            self.c('%s = %s(%s);' % (d, 'castsw' if ft == 's' else 'castdl', fr))
            if r.random() < .3:
                self.ins('%%%s =%s cast %%%s' % (fa, ft, d))
                self.c('memcpy(&%s, &%s, %d);' % (fa, d, 4 if ft == 's' else 8))
                self.fprint(fa, ft)

    def fprint(self, v, ft):
        fmt = self.new_fmt('f=%f\\n')
        if ft == 's':
            self.ins('%%fad =d exts %%%s' % v)
            self.c('fad = (double)%s;' % v)
            v = 'fad'
        self.ins('%%pr =w call $printf(l $%s, ..., d %%%s)' % (fmt, v))
        self.c('pr = (W)printf("f=%%f\\n", %s);' % v)

    def new_fmt(self, text):
        self.nfmt += 1
        name = 'fmt%d' % self.nfmt
        self.dataq.append('data $%s = { b "%s", b 0 }' % (name, text))
        return name

    # ---------------------------------------------------------------
    def s_call(self, force=None, consts=False):
        r = self.r
        cands = [g for g in self.funcs[:self.f.idx]
                 if self.cost + self.mult * (g.cost + 10) <= self.budget]
        if force is not None:
            cands = [force] if self.cost + self.mult * (force.cost + 10) <= self.budget else []
        if not cands:
            return self.s_arith()
        g = r.choice(cands)
        self.cost += self.mult * (g.cost + 10)
        qa, ca, passed = [], [], []
        nv = r.randint(0, 4) if g.vcount else None
        self.nvd = 0
        for p, t in g.params:
            if isagg(t):
                a = r.choice([a for a in self.aggs if a[1] is t])
                if a not in passed:
                    passed.append(a)
                qa.append(':%s %%%s' % (t.name, a[0]))
                ca.append(a[0])
                continue
            if nv is not None and p == 'p0':
                o = ('k', nv)
            elif consts and r.random() < .7:
                o = ('k', r.choice(WCONST if t == 'w' else LCONST))
            else:
                o = self.operand(t)
            qa.append('%s %s' % (g.abi.get(p, t), self.q_op(o)))
            ca.append(self.c_op(o, t))
        vq = []
        if g.variadic:
            vts = [g.vcount] * nv if g.vcount else list(g.vall)
            if r.random() < .2:
                # one more than it reads
                vts.append(r.choice('wld'))
            for t in vts:
                q, c = self.varg(t)
                vq.append(q)
                ca.append(c)
        x = r.random()
        if x < .08:
            # through a table of function addresses in data
            self.ins('%%fp =l add $ftab, %d' % (8 * g.idx) if g.idx else '%fp =l copy $ftab')
            self.ins('%fp =l loadl %fp')
            callee = '%fp'
        elif x < .16:
            self.ins('%%fp =l copy $%s' % g.name)
            callee = '%fp'
        else:
            callee = '$' + g.name
        # a direct call of a variadic function with nothing after the
        # fixed arguments may leave out the ...; an indirect one may not
        if g.variadic and (vq or callee != '$' + g.name or r.random() < .5):
            qa += ['...'] + vq
        if isagg(g.ret):
            # the result: copied at once into an aggregate variable of its
            # type, or a field read from it where it is
            T = g.ret
            self.ins('%%rv =:%s call %s(%s)' % (T.name, callee, ', '.join(qa)))
            same = [a for a in self.aggs if a[1] is T]
            if r.random() < .5:
                a = r.choice(same)
                self.ins('blit %%rv, %%%s, %d' % (a[0], T.size))
                self.c('%s = %s(%s);' % (a[0], g.cname, ', '.join(ca)))
            else:
                self.c('rv_%s = %s(%s);' % (T.name, g.cname, ', '.join(ca)))
                got = self.agg_read('%rv', r.choice(T.slots('rv_' + T.name, 0)))
                if r.random() < .5:
                    self.print_vals('rv', [got])
        else:
            # no call leaves out the result: QBE's reference wants a return
            # temporary whenever the callee returns a value
            d = self.dst(g.ret)[0]
            a = g.abi.get('', g.ret)
            self.ins('%%%s =%s call %s(%s)' % (d, a, callee, ', '.join(qa)))
            self.c('%s = %s(%s);' % (d, g.cname, ', '.join(ca)))
            if a != g.ret:
                self.ins('%%%s =w ext%s %%%s' % (d, a, d))
                self.c('%s = %s;' % (d, self.c_ext(a, 'w', d)))
        # the caller's own aggregates, unchanged by the callee (but for
        # one the result was copied to)
        for a in passed:
            if r.random() < .4:
                self.agg_print(a)

    def c_ext(self, a, t, x):
        ct = {'sb': 'int8_t', 'ub': 'uint8_t', 'sh': 'int16_t', 'uh': 'uint16_t',
              'sw': 'int32_t', 'uw': 'uint32_t'}[a]
        if ct[0] == 'i':
            return '(%s)(%s)(%s)%s' % (cty(t), sty(t), ct, x)
        return '(%s)(%s)%s' % (cty(t), ct, x)

    def s_print(self):
        r = self.r
        if self.mult > 8:
            return self.s_arith()
        self.cost += self.mult * 5
        parts, qa, ca = [], [], []
        for _ in range(r.randint(1, 4)):
            t = r.choice('wl')
            o = self.operand(t, allow_const=r.random() < .2)
            if t == 'w':
                f = r.choice(['%d', '%u', '%x'])
                ca.append('(%s)%s' % ('int32_t' if f == '%d' else 'uint32_t', self.c_op(o, t)))
            else:
                f = r.choice(['%ld', '%lu', '%lx'])
                ca.append('(%s)%s' % ('long' if f == '%ld' else 'unsigned long', self.c_op(o, t)))
            parts.append(f)
            qa.append('%s %s' % (t, self.q_op(o)))
        if r.random() < .15:
            parts.append('%s')
            qa.append('l $str0')
            ca.append('(char *)%sstr0' % self.P)
        text = self.f.name + ': ' + ' '.join(parts) + '\\n'
        fmt = self.new_fmt(text)
        d = self.dst('w')[0] if r.random() < .3 else 'pr'
        self.ins('%%%s =w call $printf(l $%s, ..., %s)' % (d, fmt, ', '.join(qa)))
        self.c('%s = (W)printf("%s", %s);' % (d, text, ', '.join(ca)))

    # ---------------------------------------------------------------
    # control
    def sub(self, lo, hi):
        self.depth += 1
        scoped = None
        if self.r.random() < .3:
            # a temporary first assigned here and read only here, as front
            # ends make them for a block's own variables
            self.nscoped += 1
            t = self.r.choice('wl')
            scoped = ('s%d' % self.nscoped, t)
            self.cl.insert(0, '    %s %s = 0;' % (cty(t), scoped[0]))
            o = self.operand(t)
            self.ins('%%%s =%s copy %s' % (scoped[0], t, self.q_op(o)))
            self.c('%s = %s;' % (scoped[0], self.c_op(o, t)))
            self.vars.append(scoped)
            self.readable.append(scoped)
        self.block(self.r.randint(lo, hi))
        if scoped:
            self.vars.remove(scoped)
            self.readable.remove(scoped)
        self.depth -= 1

    def s_if(self):
        qc, cc = self.cond()
        t, j = self.newlab(), self.newlab()
        self.term('jnz %s, @%s, @%s' % (qc, t, j))
        self.label(t)
        self.c('if (%s) {' % cc)
        self.ind += 1
        self.sub(1, 3)
        self.ind -= 1
        self.c('}')
        self.jmp(j)
        self.label(j)

    def s_ifelse(self):
        r = self.r
        qc, cc = self.cond()
        t, e, j = self.newlab(), self.newlab(), self.newlab()
        self.term('jnz %s, @%s, @%s' % (qc, t, e))
        # either order of the two arms in the text
        if r.random() < .5:
            self.label(t)
            self.c('if (%s) {' % cc)
            self.ind += 1
            self.sub(1, 3)
            self.jmp(j)
            self.ind -= 1
            self.c('} else {')
            self.ind += 1
            self.label(e)
            self.sub(1, 3)
            self.jmp(j)
        else:
            self.label(e)
            self.c('if (!(%s)) {' % cc)
            self.ind += 1
            self.sub(1, 3)
            self.jmp(j)
            self.ind -= 1
            self.c('} else {')
            self.ind += 1
            self.label(t)
            self.sub(1, 3)
            self.jmp(j)
        self.ind -= 1
        self.c('}')
        self.label(j)

    def phi_assign(self, dsts, vals):
        """C for the phis' parallel assignment"""
        if len(dsts) == 1:
            self.c('%s = %s;' % (dsts[0][0], self.c_op(vals[0], dsts[0][1])))
            return
        self.c('{')
        for i, (d, v) in enumerate(zip(dsts, vals)):
            self.c('    %s t%d = %s;' % (cty(d[1]), i, self.c_op(v, d[1])))
        for i, d in enumerate(dsts):
            self.c('    %s = t%d;' % (d[0], i))
        self.c('}')

    def s_phi(self):
        r = self.r
        qc, cc = self.cond()
        self.noexit += 1
        dsts = []
        for _ in range(r.randint(1, 2)):
            t = r.choice('wl')
            d = self.dst(t)
            if d not in dsts:
                dsts.append(d)
        one_arm = r.random() < .3
        t, e, j = self.newlab(), self.newlab(), self.newlab()
        arms = []
        if one_arm:
            pc = self.cur
            self.term('jnz %s, @%s, @%s' % (qc, t, j))
            v0 = [self.operand(d[1]) for d in dsts]
            self.label(t)
            self.c('if (%s) {' % cc)
            self.ind += 1
            self.sub(0, 2)
            v1 = [self.operand(d[1]) for d in dsts]
            self.phi_assign(dsts, v1)
            self.ind -= 1
            self.c('} else {')
            self.ind += 1
            self.phi_assign(dsts, v0)
            self.ind -= 1
            self.c('}')
            arms = [(pc, v0), (self.cur, v1)]
            self.jmp(j)
        else:
            self.term('jnz %s, @%s, @%s' % (qc, t, e))
            self.label(t)
            self.c('if (%s) {' % cc)
            self.ind += 1
            self.sub(0, 2)
            v1 = [self.operand(d[1]) for d in dsts]
            self.phi_assign(dsts, v1)
            arms.append((self.cur, v1))
            self.jmp(j)
            self.ind -= 1
            self.c('} else {')
            self.ind += 1
            self.label(e)
            self.sub(0, 2)
            v2 = [self.operand(d[1]) for d in dsts]
            self.phi_assign(dsts, v2)
            arms.append((self.cur, v2))
            self.jmp(j)
            self.ind -= 1
            self.c('}')
        self.noexit -= 1
        self.label(j)
        r.shuffle(arms)
        for i, d in enumerate(dsts):
            self.ins('%%%s =%s phi %s' % (d[0], d[1], ', '.join(
                '@%s %s' % (lab, self.q_op(vals[i])) for lab, vals in arms)))

    def new_counter(self):
        t = self.r.choice('wl')
        self.nloop += 1
        k = ('k%d' % self.nloop, t)
        self.readable.append(k)
        self.cdecl_extra(k)
        return k

    def cdecl_extra(self, k):
        self.cl.insert(0, '    %s %s = 0;' % (cty(k[1]), k[0]))

    def s_loop(self):
        r = self.r
        n = r.randint(1, 5)
        if self.cost + self.mult * n * 30 > self.budget:
            return self.s_arith()
        k, t = self.new_counter()
        T = cty(t)
        shape = r.choice(['top', 'bottom', 'down'])
        h, b, x = self.newlab(), self.newlab(), self.newlab()
        self.loops.append(x)
        self.mult *= n
        if shape == 'top':
            self.ins('%%%s =%s copy 0' % (k, t))
            self.jmp(h)
            self.label(h)
            cc = r.choice(['slt', 'ult', 'ne'])
            self.ins('%%bw =w c%s%s %%%s, %d' % (cc, t, k, n))
            self.term('jnz %%bw, @%s, @%s' % (b, x))
            self.label(b)
            self.c('for (%s = 0; %s < %d; %s++) {' % (k, k, n, k))
            self.ind += 1
            self.sub(1, 4)
            self.ins('%%%s =%s add %%%s, 1' % (k, t, k))
            self.jmp(h)
        elif shape == 'bottom':
            self.ins('%%%s =%s copy 0' % (k, t))
            self.label(b)
            self.c('%s = 0;' % k)
            self.c('do {')
            self.ind += 1
            self.sub(1, 4)
            self.ins('%%%s =%s add %%%s, 1' % (k, t, k))
            self.c('%s = (%s)(%s + 1);' % (k, T, k))
            cc = r.choice(['slt', 'ult', 'ne'])
            self.ins('%%bw =w c%s%s %%%s, %d' % (cc, t, k, n))
            self.term('jnz %%bw, @%s, @%s' % (b, x))
            self.ind -= 1
            self.c('} while (%s < %d);' % (k, n))
            self.ind += 1
        else:
            self.ins('%%%s =%s copy %d' % (k, t, n))
            self.jmp(h)
            self.label(h)
            self.term('jnz %%%s, @%s, @%s' % (k, b, x))
            self.label(b)
            self.c('for (%s = %d; %s != 0; %s--) {' % (k, n, k, k))
            self.ind += 1
            self.sub(1, 4)
            self.ins('%%%s =%s sub %%%s, 1' % (k, t, k))
            self.jmp(h)
        self.ind -= 1
        if shape != 'bottom':
            self.c('}')
        self.mult //= n
        self.loops.pop()
        self.readable.remove((k, t))
        self.label(x)

    def s_swap(self):
        r = self.r
        n = r.randint(1, 4)
        if self.cost + self.mult * n * 30 > self.budget:
            return self.s_arith()
        t = r.choice('wl')
        cand = [v for v in self.vars if v[1] == t]
        if len(cand) < 2:
            return self.s_arith()
        a, b = r.sample(cand, 2)
        k, kt = self.new_counter()
        h, x = self.newlab(), self.newlab()
        self.ins('%%%s =%s copy 0' % (k, kt))
        p = self.cur
        self.jmp(h)
        self.label(h)
        phi_at = len(self.q)
        self.loops.append(x)
        self.mult *= n
        self.c('%s = 0;' % k)
        self.c('for (;;) {')
        self.ind += 1
        self.sub(1, 3)
        self.ins('%%%s =%s add %%%s, 1' % (k, kt, k))
        self.c('%s = (%s)(%s + 1);' % (k, cty(kt), k))
        self.ins('%%bw =w cult%s %%%s, %d' % (kt, k, n))
        latch = self.cur
        self.term('jnz %%bw, @%s, @%s' % (h, x))
        self.c('if (!(%s < %d)) break;' % (k, n))
        self.c('{ %s t = %s; %s = %s; %s = t; }' % (cty(t), a[0], a[0], b[0], b[0]))
        self.ind -= 1
        self.c('}')
        self.mult //= n
        self.loops.pop()
        phis = ['\t%%%s =%s phi @%s %%%s, @%s %%%s' % (a[0], t, p, a[0], latch, b[0]),
                '\t%%%s =%s phi @%s %%%s, @%s %%%s' % (b[0], t, p, b[0], latch, a[0])]
        if r.random() < .5:
            phis.reverse()
        self.q[phi_at:phi_at] = phis
        self.readable.remove((k, kt))
        self.label(x)

    def s_irr(self):
        # an irreducible loop: a cycle of two blocks, each entered from
        # outside (C: gotos)
        r = self.r
        n = r.randint(1, 6)
        if self.cost + self.mult * n * 30 > self.budget:
            return self.s_arith()
        k, t = self.new_counter()
        qc, cc = self.cond()
        a, b, x = self.newlab(), self.newlab(), self.newlab()
        self.ins('%%%s =%s copy 0' % (k, t))
        self.c('%s = 0;' % k)
        self.term('jnz %s, @%s, @%s' % (qc, a, b))
        self.c('if (%s) goto L%s; else goto L%s;' % (cc, a, b))
        self.mult *= n
        for here, there in ((a, b), (b, a)):
            self.label(here)
            self.c('L%s:' % here)
            self.c('{')
            self.ind += 1
            self.sub(1, 3)
            self.ind -= 1
            self.c('}')
            self.ins('%%%s =%s add %%%s, 1' % (k, t, k))
            self.c('%s = (%s)(%s + 1);' % (k, cty(t), k))
            self.ins('%%bw =w cult%s %%%s, %d' % (t, k, n))
            self.term('jnz %%bw, @%s, @%s' % (there, x))
            self.c('if (%s < %d) goto L%s;' % (k, n, there))
            self.c('goto L%s;' % x)
        self.mult //= n
        self.readable.remove((k, t))
        self.label(x)
        self.c('L%s: ;' % x)

    def s_break(self):
        qc, cc = self.cond()
        nx = self.newlab()
        self.term('jnz %s, @%s, @%s' % (qc, self.loops[-1], nx))
        self.label(nx)
        self.c('if (%s) break;' % cc)

    def s_ret(self):
        qc, cc = self.cond()
        t, nx = self.newlab(), self.newlab()
        self.term('jnz %s, @%s, @%s' % (qc, t, nx))
        self.label(t)
        qo, co = self.ret_operand()
        self.term('ret %s' % qo)
        self.label(nx)
        self.c('if (%s) return %s;' % (cc, co))

    def s_hlt(self):
        # jnz on a value known nonzero; the other way is a hlt never reached
        o = self.operand('w', allow_const=False)
        t, d = self.newlab(), self.newlab('never')
        self.ins('%%bw =w or %s, 1' % self.q_op(o))
        self.c('bw = %s | 1;' % self.c_op(o, 'w'))
        self.term('jnz %%bw, @%s, @%s' % (t, d))
        self.label(d)
        self.term('hlt')
        self.label(t)


def main():
    a = sys.argv[1:]
    if a and a[0] == '--multi':
        size, d, seeds = int(a[1]), a[2], a[3:]
        c = [PRELUDE]
        disp = []
        for s in seeds:
            g = Gen(int(s), size, 'p%s_' % s)
            q, cc = g.gen_program()
            with open('%s/%s.ssa' % (d, s), 'w') as f:
                f.write(q)
            c.append(cc)
            disp.append('    if (n == %s) return p%s_run();' % (s, s))
        c.append('#include <stdlib.h>\nint main(int argc, char **argv)\n{\n'
                 '    long n = argc > 1 ? strtol(argv[1], 0, 10) : -1;\n' +
                 '\n'.join(disp) + '\n    return 125;\n}\n')
        with open('%s/all.c' % d, 'w') as f:
            f.write('\n'.join(c))
        return
    if len(a) != 3:
        sys.stderr.write('usage: gen_qbe_c.py SEED SIZE OUT | --multi SIZE DIR SEED...\n')
        sys.exit(2)
    g = Gen(int(a[0]), int(a[1]))
    q, c = g.gen_program()
    with open(a[2] + '.ssa', 'w') as f:
        f.write(q)
    with open(a[2] + '.c', 'w') as f:
        f.write(PRELUDE + c + 'int main(void) { return run(); }\n')


if __name__ == '__main__':
    main()
