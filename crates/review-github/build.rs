//! Registers the GraphQL schema subset with cynic, so queries are checked at compile time.

fn main() {
    println!("cargo::rerun-if-changed=schema/github.graphql");
    cynic_codegen::register_schema("github")
        .from_sdl_file("schema/github.graphql")
        .expect("schema/github.graphql is present and valid SDL")
        .as_default()
        .expect("the schema registers as the default");
}
