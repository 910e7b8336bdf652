//! The `assetvc-merge-driver` binary: the merge driver git starts once per merged file,
//! `assetvc-merge-driver %O %A %B %P`. It does what `assetvc merge-driver -- %O %A %B %P`
//! does; it exists because it starts faster: a driver call is mostly process start-up,
//! and this binary links only the merge, not the whole command line.

#[global_allocator]
static ALLOCATOR: assetvc_cli::HugePages = assetvc_cli::HugePages;

fn main() -> std::process::ExitCode {
    assetvc_cli::merge_driver_main()
}
