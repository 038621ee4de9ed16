# Sourced by the end-to-end scripts that work in a scratch git repository.
#
# git_scratch WHAT: skips the script (exit 77, naming WHAT) when git is not installed,
# and gives git a configuration of its own in the script's directory (HOME), so that
# nothing of the user's or a surrounding CI run's configuration takes part.
git_scratch() {
    command -v git >/dev/null 2>&1 || { echo "git is not installed; $1 skipped"; exit 77; }
    export GIT_CONFIG_NOSYSTEM=1 HOME="$PWD"
    git config --global user.email ci@example.invalid
    git config --global user.name ci
    git config --global init.defaultBranch main
}
