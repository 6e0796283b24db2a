# Sourced by jcni's scripts that need root (network namespaces). Machines of this kind run as root and have no sudo,
# so the README's commands carry no "sudo": as root this does nothing; as another user it re-runs the calling script
# under sudo when there is one, and otherwise says what to do.
#   as_root <what needs root> "$0" "$@"      # returns only when already root
as_root() {
  local why=$1 script
  script=$(readlink -f -- "$2")   # absolute: sudo must find it whatever the caller did with the directory
  shift 2
  [ "$(id -u)" -eq 0 ] && return 0
  if command -v sudo >/dev/null 2>&1; then
    echo "$script: $why, so it needs root: re-running under sudo" >&2
    exec sudo -- "$script" "$@"
  fi
  echo "$script: $why, so it needs root: run it as root (there is no sudo here)" >&2
  exit 1
}
