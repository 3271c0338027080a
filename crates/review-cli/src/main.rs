//! `review`: triage the review conversation on a GitHub pull request.

fn main() -> std::process::ExitCode {
    review_cli::run()
}
