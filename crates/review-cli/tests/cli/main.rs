//! End-to-end tests of the `review` binary.
#![allow(clippy::unwrap_used, reason = "test helpers: a panic is a failed test")]
#![allow(
    clippy::disallowed_methods,
    reason = "tests run the binary and git, and set the environment they read"
)]

mod attack2_support;
mod attack_harness;
mod common;
mod drill_support;
mod test_action;
mod test_apply;
mod test_attack_audit_log;
mod test_attack_commands;
mod test_attack_deny_case;
mod test_attack_gate_doors;
mod test_attack_hooks;
mod test_attack_loop_rounds;
mod test_attack_mcp_args;
mod test_attack_pathspecs;
mod test_attack_stale_reads;
mod test_attack_trailers;
mod test_attack_writes_once;
mod test_config;
mod test_crash;
mod test_defer;
mod test_drills;
mod test_escapes;
mod test_finish;
mod test_followup;
mod test_form_browser;
mod test_hostile;
mod test_judge;
mod test_live;
mod test_loop_knock_ons;
mod test_mcp;
mod test_old_server;
mod test_rereview;
mod test_respond;
mod test_schemas;
mod test_secrets;
mod test_state_files;
mod test_status;
mod test_token_hosts;
mod test_triage;
mod test_triage_runs;
mod test_watch;
mod upgrade_scenario;
