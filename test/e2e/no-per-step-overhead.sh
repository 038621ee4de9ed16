# The costs that once came with every step are gone for good: no libfyaml document or
# diag per step (each diag asked isatty(2): 10,207 failing TCGETS ioctls for 1 MB), so
# the number of ioctl calls does not grow with the number of steps.
set -eu
command -v strace >/dev/null 2>&1 || { echo "strace is not installed; the per-step syscall check is skipped"; exit 77; }
gen() { awk -v n="$1" 'BEGIN { print "steps:"; for (i = 0; i < n; i++) printf "  - key: s%d\n    parallelism: 2\n    command: x %d\n", i, i }'; }
gen 10 >small.yml
gen 5000 >large.yml
ioctls() { strace -f -c -e trace=ioctl "$FANOUT" render --no-validate "$1" 2>&1 >/dev/null | awk '$NF == "ioctl" { print $4 }'; }
small=$(ioctls small.yml)
large=$(ioctls large.yml)
echo "ioctl calls: ${small:-0} for 10 steps, ${large:-0} for 5,000"
[ "${large:-0}" -le "$(( ${small:-0} + 2 ))" ]
