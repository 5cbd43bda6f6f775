use clap::Parser;

fn main() {
    let cli = tracelens::cli::Cli::parse();
    std::process::exit(tracelens::cli::run(cli));
}
