//! `levelgen N [--json] [--seed S]`: prints a generated level of N entities.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let json = args.iter().any(|a| a == "--json");
    let level = levelgen::Level::random(n, 1);
    print!(
        "{}",
        if json {
            level.to_json()
        } else {
            level.to_sjson()
        }
    );
}
