//! The `assetvc` binary: the whole command line (see the `assetvc_cli` library).

#[global_allocator]
static ALLOCATOR: assetvc_cli::HugePages = assetvc_cli::HugePages;

fn main() -> std::process::ExitCode {
    assetvc_cli::main()
}
