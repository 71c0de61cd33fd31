#!/usr/bin/python3
"""Measures the Newton-Schulz tolerance of spec/muon.md NS-TOL-1 on random matrices.

For every profile: correct implementations in several operand precisions (numpy fp32, tf32 and
bf16 emulations, torch's CPU bf16 matmul) and the equivalent forms of NS-SHAPE-1 / NS-ITER-1
must stay inside T_C; the mutants of spec/muon.md section 5 should fall outside the fp32 bound.
The reference is the binary64 iteration. The tolerance model `nsmodel` mirrors
common/ns_tolerance.c (keep the two in step).
usage: /usr/bin/python3 vectors/gen/measure_ns.py [PROFILES] [TRIALS] [SEED]   (needs numpy, torch)
"""
import sys

import numpy as np
import torch

f32 = np.float32
# name: (tuples, schedule, steps, eps mode, s, eps)   spec/muon.md section 2
SETS = {
    'simple': ([(3.4445, -4.7750, 2.0315)], 'cycle', 5, 'add', 1.0, 1e-7),
    'quintic': ([(4.0848, -6.8946, 2.9270), (3.9505, -6.3029, 2.6377), (3.7418, -5.5913, 2.3037),
                 (2.8769, -3.1427, 1.2046), (2.8366, -3.0525, 1.2012)], 'cycle', 5, 'max', 1.0, 1e-7),
    'polar-express': ([(8.2051, -22.9019, 16.4607), (4.0664, -2.8612, 0.5184), (3.9096, -2.8234, 0.5250),
                       (3.2856, -2.4153, 0.4853), (2.2779, -1.6198, 0.3985), (1.8726, -1.2307, 0.3585),
                       (1.8564, -1.2132, 0.3568), (1.8750, -1.2500, 0.3750)], 'repeat_last', 8, 'max', 1.0, 1e-7),
    'aol': ([(4.0098, -7.0585, 2.4635), (3.4585, -5.5479, 2.5959), (2.7573, -3.2939, 1.4254),
             (2.7215, -3.0494, 1.3169)], 'cycle', 4, 'max', 1.0, 1e-7),
}
SETS['polar-express-safety'] = (SETS['polar-express'][0], 'repeat_last', 8, 'add', 1.01, 1e-7)
def coefs(name, steps):
    cs,mode,_,_,_,_=SETS[name]; cs=[tuple(float(f32(v)) for v in c) for c in cs]
    if mode=='cycle': return [cs[i%len(cs)] for i in range(steps)]
    return [cs[min(i,len(cs)-1)] for i in range(steps)]
def rnd(x, bits):  # round float32 array to `bits` explicit mantissa bits, RNE
    x=np.asarray(x,dtype=np.float32).copy(); u=x.view(np.uint32); sh=23-bits
    u += np.uint32((1<<(sh-1))-1) + ((u>>np.uint32(sh))&np.uint32(1)); u &= np.uint32(~((1<<sh)-1)&0xffffffff); return x
def ns(G, name, mode='f64', steps=None, mut=None):
    cs,_,st,em,sc,eps=SETS[name]; steps=steps or st
    if mut=='steps-1': steps-=1
    if mut=='steps+1': steps+=1
    C=coefs(name,steps)
    if mut=='wrong-set': C=coefs('quintic' if name=='simple' else 'simple', steps)
    if mut=='reversed': C=C[::-1]
    tall = G.shape[0]>G.shape[1]
    notrans = mut=='no-transpose'
    dt = np.float64 if mode=='f64' else np.float32
    X = G.astype(dt)
    if tall and not notrans: X=X.T
    if mode=='bf16': X=rnd(X,7)
    nrm = np.sqrt((X.astype(np.float64)**2).sum())
    if mut=='spectral': nrm=np.linalg.norm(X.astype(np.float64),2)
    if mut=='maxnorm': nrm=np.abs(X).max()
    if mut=='eps-omitted': d=nrm*sc
    elif em=='add': d=nrm*sc+eps
    else: d=max(nrm*sc,eps)
    X=(X/dt(d)).astype(dt)
    if mode=='bf16': X=rnd(X,7)
    def mm(P,Q):
        if mode=='tf32': return rnd(P,10)@rnd(Q,10)
        if mode=='bf16': return rnd(rnd(P,7)@rnd(Q,7),7)
        if mode=='torchbf16': return torch.from_numpy(P).bfloat16().matmul(torch.from_numpy(Q).bfloat16()).float().numpy()
        return P@Q
    def ew(v): return rnd(v,7) if mode in('bf16',) else v
    for a,b,c in C:
        a,b,c=dt(a),dt(b),dt(c)
        if notrans and tall:
            A=ew(mm(X.T,X)); B=ew(ew(b*A)+ew(c*ew(mm(A,A)))); X=ew(ew(a*X)+ew(mm(X,B)))
        elif mut=='grouping':
            A=ew(mm(X,X.T)); AX=ew(mm(A,X)); X=ew(ew(a*X)+ew(ew(b*AX)+ew(c*ew(mm(A,AX)))))
        elif mut=='gram-wrong-side':
            A=ew(mm(X.T,X)); B=ew(ew(b*A)+ew(c*ew(mm(A,A)))); X=ew(ew(a*X)+ew(mm(B,X)))
        else:
            A=ew(mm(X,X.T)); B=ew(ew(b*A)+ew(c*ew(mm(A,A)))); X=ew(ew(a*X)+ew(mm(B,X)))
    X=X.astype(np.float64)
    if tall and not notrans: X=X.T
    return X
def metrics(Y, Yx):
    if not np.all(np.isfinite(Y)): return np.inf, np.inf
    nf=np.linalg.norm(Yx)
    rel=np.linalg.norm(Y-Yx)/nf if nf>0 else (0.0 if not np.any(Y) else np.inf)
    s1=np.linalg.svd(Y,compute_uv=False); s2=np.linalg.svd(Yx,compute_uv=False)
    return rel, np.abs(s1-s2).max()
def make(rng, r, c, kind):
    if kind=='gauss': return rng.standard_normal((r,c)).astype(f32)
    k=min(r,c)
    U,_=np.linalg.qr(rng.standard_normal((r,k))); V,_=np.linalg.qr(rng.standard_normal((c,k)))
    if kind=='ill': s=10**rng.uniform(-6,0,k)
    elif kind=='lowrank': s=np.r_[rng.uniform(0.1,1,max(1,k//4)), np.zeros(k-max(1,k//4))]
    elif kind=='orth': s=np.ones(k)
    return ((U*s)@V.T*rng.uniform(1e-3,1e3)).astype(f32)
K = 8  # NS_TOL_SAFETY
CL={'exact':(2.0**-53,2.0**-53,2.0**-24),'f32':(2.0**-24,2.0**-24,2.0**-24),'tf32':(2.0**-11,2.0**-24,2.0**-24),'bf16':(2.0**-8,2.0**-24,2.0**-8)}
CL['torchbf16']=CL['bf16']
def nsmodel(G,name,cls,steps=None):
    cs,_,st,em,sc,eps=SETS[name]; steps=steps or st; C=coefs(name,steps)
    Gd=G.astype(np.float64); k=min(G.shape); n=max(G.shape)
    nrm=np.sqrt((Gd**2).sum()); d= nrm*sc+eps if em=='add' else max(nrm*sc,eps)
    s=np.linalg.svd(Gd,compute_uv=False)/d
    uc,ua,us=CL[cls]; cfac=1+np.sqrt(n)*ua/uc
    traj=[s]
    for (a,b,c) in C: traj.append(a*traj[-1]+b*traj[-1]**3+c*traj[-1]**5)
    S=len(C); Psym=np.ones((k,k)); Pq=np.ones(k)
    def add(loc): return loc**2/(k*n)*(Psym.sum()+(n-k)*Pq.sum())
    tot=add(us*np.sqrt((traj[S]**2).sum()))
    for m in range(S-1,-1,-1):
        a,b,c=C[m]; s=traj[m]; p=traj[m+1]
        tot+=add(cfac*uc*np.sqrt(((a*s)**2).sum()+((b*s**3)**2).sum()+((c*s**5)**2).sum()+(p**2).sum()))
        x=s[:,None]; y=s[None,:]; px=p[:,None]; py=p[None,:]
        with np.errstate(all='ignore'):
            dm=np.where(x!=y,(px-py)/(x-y),a+3*b*x*x+5*c*x**4)
            dp=np.where(x+y>0,(px+py)/(x+y),a)
        Psym=Psym*(dm**2+dp**2)/2; q=a+b*s*s+c*s**4; Pq=Pq*q*q
    tot+=add(2*uc*np.sqrt((traj[0]**2).sum()))
    return np.sqrt(tot)
def with_normalisation(G, name, em=None, sc=None):
    old = SETS[name]
    SETS[name] = old[:3] + (em or old[3], sc or old[4], old[5])
    try:
        return ns(G, name)
    finally:
        SETS[name] = old


def main():
    names = sys.argv[1].split(',') if len(sys.argv) > 1 else list(SETS)
    trials = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rng = np.random.default_rng(int(sys.argv[3]) if len(sys.argv) > 3 else 2)
    shapes = [(8, 8), (16, 64), (64, 16), (32, 32), (64, 256), (128, 128), (5, 3), (1, 7), (3, 5), (2, 2)]
    modes = ['f32', 'tf32', 'bf16', 'torchbf16']
    muts = ['wrong-set', 'reversed', 'steps-1', 'steps+1', 'spectral', 'maxnorm', 'gram-wrong-side']
    for name in names:
        rat = {m: [] for m in modes}; sv = {m: 0 for m in modes}; worst = {m: (0, None) for m in modes}
        mk = {(m, cl): [0, 0, np.inf] for m in muts for cl in ['f32', 'tf32', 'bf16']}
        eq = {'no-transpose': 0, 'grouping': 0}
        safety = []
        for trial in range(trials):
            for (r, c) in shapes:
                for kind in ['gauss', 'ill', 'lowrank', 'orth']:
                    G = make(rng, r, c, kind); Yx = ns(G, name); k = min(r, c); n = max(r, c)
                    sx = np.linalg.svd(Yx, compute_uv=False)
                    for m in modes:
                        tb = K * nsmodel(G, name, m); Y = ns(G, name, m)
                        e = np.linalg.norm(Y - Yx) / tb; rat[m].append(e)
                        if e > worst[m][0]: worst[m] = (e, (r, c, kind))
                        sv[m] = max(sv[m], np.abs(np.linalg.svd(Y, compute_uv=False) - sx).max()
                                    / (tb * (1 / np.sqrt(k) + 1 / np.sqrt(n))))
                    tb32 = K * nsmodel(G, name, 'f32')
                    for v in eq: eq[v] = max(eq[v], np.linalg.norm(ns(G, name, 'f32', mut=v) - Yx) / tb32)
                    if name.startswith('polar'):
                        safety.append(np.linalg.norm(with_normalisation(G, name, sc=1.0)
                                                     - with_normalisation(G, name, sc=1.01)) / tb32)
                    for mu in muts:
                        if r != c and mu == 'gram-wrong-side': continue
                        Ym = ns(G, name, mut=mu)
                        for cl in ['f32', 'tf32', 'bf16']:
                            tb = K * nsmodel(G, name, cl)
                            e = np.linalg.norm(Ym - Yx) / tb if np.all(np.isfinite(Ym)) else np.inf
                            mk[(mu, cl)][1] += 1
                            if e > 1: mk[(mu, cl)][0] += 1
                            mk[(mu, cl)][2] = min(mk[(mu, cl)][2], e)
        print(name, 'inputs per implementation:', len(rat['f32']))
        for m in worst:
            print('  impl %-10s err/T median %.4f max %.4f at %s; band ratio max %.4f'
                  % (m, np.median(rat[m]), *worst[m], sv[m]))
        print('  equivalent forms (fp32) err/T max: ' + ', '.join('%s %.4f' % kv for kv in eq.items()))
        if safety:
            print('  safety factor 1.01 vs 1: diff/T(fp32) max %.3g, %d of %d above 1'
                  % (max(safety), sum(x > 1 for x in safety), len(safety)))
        for (mu, cl), v in mk.items():
            print('  mutant %-16s %-4s outside %d/%d  min err/T %.3g' % (mu, cl, *v))


if __name__ == '__main__':
    main()
