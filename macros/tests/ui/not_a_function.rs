//! The attributes go on functions only.

#[filch::main]
struct Main {
    field: u32,
}

#[filch::test]
mod tests {}

fn main() {}
