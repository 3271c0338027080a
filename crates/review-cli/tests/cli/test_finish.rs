//! The CLI's finish: completions and a man page generated from the command line, and color.

use crate::common::TestEnvironment;

#[test]
fn completions_cover_every_command_in_every_shell() {
    let env = TestEnvironment::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = env.run(&["completions", shell]);
        assert_eq!(out.code, 0, "{shell}: {}", out.stderr);
        for command in [
            "triage",
            "watch",
            "decide",
            "commit-round",
            "loop",
            "config",
        ] {
            assert!(out.stdout.contains(command), "{shell} lacks {command}");
        }
    }
    let out = env.run(&["completions", "tcsh"]);
    assert_eq!(out.code, 2, "an unknown shell is a usage error");
}

#[test]
fn the_man_page_has_a_section_per_command() {
    let env = TestEnvironment::new();
    let out = env.run(&["man"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with(".ie") || out.stdout.contains(".TH review"),
        "roff"
    );
    for section in [
        "REVIEW TRIAGE",
        "REVIEW WATCH",
        "REVIEW LOOP",
        "REVIEW CONFIG",
    ] {
        assert!(
            out.stdout.contains(&format!(".SH \"{section}\"")),
            "{section}"
        );
    }
    assert!(
        out.stdout.contains("\\-\\-full\\-every"),
        "options are listed"
    );
}

#[test]
fn color_is_chosen_by_flag_and_no_color() {
    let env = TestEnvironment::new();
    // A usage error: no PR for a snapshot that does not exist.
    let args = ["triage", "--input", "missing.json"];
    let plain = env.run_with(&args, &[("NO_COLOR", "1")]);
    assert!(plain.stderr.starts_with("error:"), "{}", plain.stderr);
    let mut forced: Vec<&str> = args.to_vec();
    forced.extend(["--color", "always"]);
    let colored = env.run_with(&forced, &[("NO_COLOR", "1")]);
    assert!(
        colored.stderr.starts_with("\u{1b}[1;31merror:\u{1b}[0m"),
        "{:?}",
        colored.stderr
    );
    let mut never: Vec<&str> = args.to_vec();
    never.extend(["--color", "never"]);
    assert!(!env.run(&never).stderr.contains('\u{1b}'));
}
