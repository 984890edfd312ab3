// ge-fuzz's user errors: one `ge-fuzz: error: ...` line on stderr, exit status 1,
// before any graph is drawn. `python` is the venv's (lit.cfg puts its bin dir first).

// RUN: sh -c 'echo BEGIN; python -m tools.ge_fuzz -p ge-O2 --aim cse,nope 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=AIM
// AIM:      {{^}}BEGIN{{$}}
// AIM-NEXT: {{^}}ge-fuzz: error: --aim names nope, which 'ge-O2' does not run (its passes: fold-quantized, canonicalize, constant-fold, fold-batch-norm, cse, dce){{$}}
// AIM-NEXT: {{^}}exit status 1{{$}}

// RUN: sh -c 'echo BEGIN; python -m tools.ge_fuzz -p ge-O2,no-such-pass 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=PASS
// PASS:      {{^}}BEGIN{{$}}
// PASS-NEXT: {{^}}ge-fuzz: error: Unrecognized passes: ['no-such-pass']{{$}}
// PASS-NEXT: {{^}}exit status 1{{$}}
