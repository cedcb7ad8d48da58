//! The misuses of `#[filch::main]` and `#[filch::test]` are compile errors that point at the
//! user's code and say how to fix it: each file in `ui/` is compiled against filch, and its
//! errors must match the `.stderr` beside it (regenerate with `TRYBUILD=overwrite`, then
//! read them).

#[test]
fn misuses_are_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
