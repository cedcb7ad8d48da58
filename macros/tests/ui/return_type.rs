//! A body whose value is not the declared return type is reported at the body's last
//! statement, not at the attribute.

#[filch::main]
async fn main() -> Result<(), std::io::Error> {
    let answer = 42;
    answer
}
