#!/usr/bin/env bash
# install.sh: install, upgrade or remove the agentbox appliance.
#
#   ./install.sh                      build (if needed) and install as a systemd service
#   ./install.sh --binary ./agentbox  install that binary (run again with a newer one to upgrade)
#   ./install.sh --uninstall          remove the service and binary, keep data and configuration
#   ./install.sh --prefix DIR --no-systemd   only copy the binary to DIR/bin, touch nothing else
#
# Nothing runs until the last line calls main(), so a partially downloaded copy does nothing.

set -eu

# The script uses bash; "sh install.sh" re-runs it with bash.
if [ -z "${BASH_VERSION:-}" ]; then
	if [ -f "$0" ] && command -v bash >/dev/null 2>&1; then exec bash "$0" "$@"; fi
	echo "install.sh: error: run this script with bash" >&2
	exit 1
fi

# ---------------------------------------------------------------------------------------------
# Fixed locations of the systemd install.
SERVICE=agentbox
SERVICE_USER=agentbox
SERVICE_GROUP=agentbox
DATA_DIR_SYSTEM=/var/lib/agentbox
ETC_DIR=/etc/agentbox
ENV_FILE=/etc/agentbox/agentbox.env
UNIT_FILE=/etc/systemd/system/agentbox.service
DROPIN_DIR=/etc/systemd/system/agentbox.service.d
DROPIN_FILE=/etc/systemd/system/agentbox.service.d/10-container.conf
READY_TIMEOUT_S=60

usage() {
	cat <<'EOF'
Usage: install.sh [--binary PATH] [--prefix DIR] [--no-systemd] [--uninstall] [--purge]
                  [--no-backup] [--print-unit] [--help]

Installs the agentbox binary as a hardened systemd service (the default), upgrades it in
place when run again with a newer binary, or removes it.

Options:
  --binary PATH   the agentbox executable to install. Default: dist/agentbox next to this
                  script, built first with `npm run build` if it is missing.
  --prefix DIR    install the binary as DIR/bin/agentbox. Default: /usr/local, or
                  $HOME/.local with --no-systemd.
  --no-systemd    only install the binary: no root, no user, no service, nothing written
                  outside DIR/bin. Prints how to start it by hand.
  --uninstall     stop and remove the service and the binary. Data and configuration
                  are kept.
  --purge         with --uninstall: also delete the data and configuration (and the
                  agentbox system user). This cannot be undone.
  --no-backup     upgrade without taking the pre-upgrade database backup.
  --print-unit    print the systemd unit this script would install, and exit.
  -h, --help      show this help, and exit.

The systemd install needs root (the script re-runs itself with sudo). It uses the system
user "agentbox", keeps data in /var/lib/agentbox, reads /etc/agentbox/agentbox.env and logs
to the journal (journalctl -u agentbox).
EOF
}

info() { printf '%s\n' "$*"; }
warn() { printf 'install.sh: warning: %s\n' "$*" >&2; }
die() {
	printf 'install.sh: error: %s\n' "$*" >&2
	exit 1
}

have() { command -v "$1" >/dev/null 2>&1; }

# --purge deletes a data directory only when Agentbox made it: it holds the database (agentbox.db)
# or the data-dir lock (agentbox.lock), or it is empty. Anything else may be someone's files.
purge_data_dir() {
	dir=$1
	[ -d "$dir" ] || return 0
	if [ -e "$dir/agentbox.db" ] || [ -e "$dir/agentbox.lock" ]; then
		rm -rf "$dir"
		info "purged the data in $dir"
	elif rmdir "$dir" 2>/dev/null; then
		info "removed the empty $dir"
	else
		warn "kept $dir: it is not an Agentbox data directory (no agentbox.db or agentbox.lock); delete it yourself if it is"
		return 1
	fi
}

# Absolute form of a path (the path itself need not exist).
abspath() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "$(pwd)" "$1" ;;
	esac
}

file_hash() {
	if have sha256sum; then
		sha256sum <"$1" | awk '{print $1}'
	elif have shasum; then
		shasum -a 256 <"$1" | awk '{print $1}'
	else
		cksum <"$1"
	fi
}

# True when both files exist and have the same content (compared by sha256).
same_content() {
	[ -f "$1" ] || return 1
	[ -f "$2" ] || return 1
	[ "$(file_hash "$1")" = "$(file_hash "$2")" ]
}

# ---------------------------------------------------------------------------------------------
# The unit. ExecStart uses the binary under $1 (the prefix).
unit_text() {
	cat <<EOF
# Installed by agentbox install.sh. Local changes belong in a drop-in:
#   systemctl edit agentbox
[Unit]
Description=Agentbox
Wants=network-online.target
After=network-online.target

[Service]
Type=exec
User=agentbox
Group=agentbox
EnvironmentFile=-/etc/agentbox/agentbox.env
ExecStart=$1/bin/agentbox serve --data /var/lib/agentbox
StateDirectory=agentbox
StateDirectoryMode=0750
WorkingDirectory=%S/agentbox
Restart=on-failure
RestartSec=5s
TimeoutStopSec=30s
LimitNOFILE=65536
UMask=0027
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
ProtectProc=invisible
RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
RemoveIPC=yes
CapabilityBoundingSet=
SystemCallArchitectures=native
# JavaScriptCore JIT needs writable+executable pages:
MemoryDenyWriteExecute=no
# Memory: reclaim pressure from 60% of the machine's RAM, killed (and restarted) at 75%, so a
# runaway request cannot take the host down with it. A dedicated host can raise both in a drop-in.
# (Never LimitAS=: Bun reserves far more address space than it uses.)
MemoryHigh=60%
MemoryMax=75%
# To bind :80/:443 directly: AmbientCapabilities=CAP_NET_BIND_SERVICE + CapabilityBoundingSet=CAP_NET_BIND_SERVICE

[Install]
WantedBy=multi-user.target
EOF
}

# Drop-in for containers (LXC, systemd-nspawn, ...), where the mount/UTS namespaces that these
# options need are often refused and the service dies with status=226/NAMESPACE.
container_dropin_text() {
	cat <<EOF
# Written by agentbox install.sh because systemd-detect-virt -c reported "$1".
# Containers often refuse the namespaces these options need (status=226/NAMESPACE), so they
# are relaxed here; the container itself is the isolation boundary. Delete this file and run
# "systemctl daemon-reload && systemctl restart agentbox" to try the full hardening.
[Service]
PrivateTmp=no
PrivateDevices=no
ProtectSystem=no
ProtectHome=no
ProtectKernelTunables=no
ProtectKernelModules=no
ProtectKernelLogs=no
ProtectControlGroups=no
ProtectClock=no
ProtectHostname=no
ProtectProc=default
RestrictNamespaces=no
EOF
}

env_file_text() {
	cat <<'EOF'
# agentbox configuration, read by the systemd unit (EnvironmentFile=).
# Uncomment and change a line, then: sudo systemctl restart agentbox
# install.sh never overwrites this file.

#AGENTBOX_PORT=8080
#AGENTBOX_HOST=0.0.0.0
# The unit passes --data /var/lib/agentbox, which wins over this variable; to move the data,
# change ExecStart (and allow the new path with ReadWritePaths=) in "systemctl edit agentbox".
#AGENTBOX_DATA_DIR=/var/lib/agentbox
#AGENTBOX_LOG_LEVEL=info
EOF
}

# ---------------------------------------------------------------------------------------------
# Binary handling, shared by both modes.

# Resolve BINARY (build the default one if it is missing) and check that it runs.
resolve_binary() {
	if [ -z "$BINARY" ]; then
		BINARY="$SCRIPT_DIR/dist/agentbox"
		if [ ! -e "$BINARY" ]; then
			info "==> $BINARY is missing; building it with npm run build"
			have npm || die "npm not found: build the binary with \"npm run build\" or pass --binary PATH"
			(cd "$SCRIPT_DIR" && npm run build) || die "npm run build failed; pass --binary PATH to install a prebuilt binary"
		fi
	fi
	BINARY=$(abspath "$BINARY")
	[ -e "$BINARY" ] || die "binary not found: $BINARY (build it with \"npm run build\" or pass --binary PATH)"
	[ -f "$BINARY" ] || die "not a regular file: $BINARY"
	[ -x "$BINARY" ] || die "binary is not executable: $BINARY (chmod +x it, or pass the right --binary PATH)"
	local out
	if have timeout; then
		out=$(timeout 20 "$BINARY" version 2>&1) || die "$BINARY does not run on this machine (\"$BINARY version\" failed: $out)"
	else
		out=$("$BINARY" version 2>&1) || die "$BINARY does not run on this machine (\"$BINARY version\" failed: $out)"
	fi
	BINARY_VERSION=$(printf '%s\n' "$out" | head -n 1)
}

# Copy BINARY to $1/agentbox atomically: agentbox.new in the same directory, the current one
# kept as agentbox.prev, then a rename. A running process keeps the old inode.
# Sets BINARY_CHANGED=1 when something was installed.
install_binary() {
	local dir=$1
	local dest="$dir/agentbox" new="$dir/agentbox.new" prev="$dir/agentbox.prev"
	BINARY_CHANGED=0
	if same_content "$BINARY" "$dest"; then
		return 0
	fi
	mkdir -p "$dir" || die "cannot create $dir"
	rm -f "$new"
	if ! cp "$BINARY" "$new"; then
		rm -f "$new"
		die "cannot copy $BINARY to $new"
	fi
	chmod 0755 "$new"
	if [ -e "$dest" ]; then
		rm -f "$prev"
		if ! { ln "$dest" "$prev" 2>/dev/null || cp -p "$dest" "$prev"; }; then
			rm -f "$new"
			die "cannot keep the previous binary as $prev"
		fi
	fi
	mv -f "$new" "$dest" || die "cannot move $new to $dest"
	BINARY_CHANGED=1
}

remove_binaries() {
	local dir=$1 f removed=0
	for f in "$dir/agentbox" "$dir/agentbox.prev" "$dir/agentbox.new"; do
		if [ -e "$f" ] || [ -L "$f" ]; then
			rm -f "$f" || die "cannot remove $f"
			info "removed $f"
			removed=1
		fi
	done
	[ "$removed" = 1 ] || info "no agentbox binary in $dir (nothing to remove)"
}

# ---------------------------------------------------------------------------------------------
# --no-systemd mode: only DIR/bin is written.

local_install() {
	local bindir="$PREFIX/bin" had=0
	[ -e "$bindir/agentbox" ] && had=1
	install_binary "$bindir"
	if [ "$BINARY_CHANGED" = 0 ]; then
		info "agentbox is already up to date in $bindir/agentbox ($BINARY_VERSION)"
	elif [ "$had" = 1 ]; then
		info "upgraded $bindir/agentbox to $BINARY_VERSION (previous binary kept as $bindir/agentbox.prev)"
	else
		info "installed $bindir/agentbox ($BINARY_VERSION)"
	fi
	info ""
	info "Start it with:"
	info "  $bindir/agentbox serve --data $LOCAL_DATA_DIR"
	info "then open the setup link it logs (grep setup) in a browser."
	case ":${PATH:-}:" in
	*":$bindir:"*) ;;
	*) info "($bindir is not on your PATH.)" ;;
	esac
}

local_uninstall() {
	remove_binaries "$PREFIX/bin"
	if [ "$PURGE" = 1 ]; then
		purge_data_dir "$LOCAL_DATA_DIR" || exit 1
	elif [ -d "$LOCAL_DATA_DIR" ]; then
		info "kept the data in $LOCAL_DATA_DIR (delete it yourself, or re-run with --uninstall --purge)"
	fi
}

# ---------------------------------------------------------------------------------------------
# systemd mode.

require_systemd() {
	if ! have systemctl || [ ! -d /run/systemd/system ]; then
		die "systemd is not running on this machine; use --no-systemd [--prefix DIR] to install only the binary"
	fi
}

# Re-run this script as root through sudo, with the same arguments.
become_root() {
	[ "$(id -u)" = 0 ] && return 0
	have sudo || die "this needs root: run it as root, or use --no-systemd [--prefix DIR] for a user install"
	[ -f "$SCRIPT_PATH" ] || die "this needs root: run it as root (cannot re-run $SCRIPT_PATH with sudo)"
	info "==> root is needed; re-running with sudo"
	exec sudo -- bash "$SCRIPT_PATH" "$@"
}

ensure_user() {
	local nologin=/usr/sbin/nologin
	[ -x "$nologin" ] || nologin=/sbin/nologin
	[ -x "$nologin" ] || nologin=/bin/false
	if ! getent group "$SERVICE_GROUP" >/dev/null 2>&1; then
		groupadd --system "$SERVICE_GROUP" || die "cannot create group $SERVICE_GROUP"
		info "created group $SERVICE_GROUP"
	fi
	if ! id -u "$SERVICE_USER" >/dev/null 2>&1; then
		useradd --system --no-create-home --home-dir "$DATA_DIR_SYSTEM" --shell "$nologin" \
			--gid "$SERVICE_GROUP" --comment "Agentbox" "$SERVICE_USER" ||
			die "cannot create user $SERVICE_USER"
		info "created system user $SERVICE_USER"
	fi
}

# Run a command as the service user.
as_service_user() {
	if have runuser; then
		runuser -u "$SERVICE_USER" -- "$@"
	elif have setpriv; then
		setpriv --reuid="$SERVICE_USER" --regid="$SERVICE_GROUP" --init-groups -- "$@"
	else
		sudo -u "$SERVICE_USER" -- "$@"
	fi
}

# Read a plain NAME=value line from the env file (commented lines ignored).
env_file_value() {
	[ -r "$ENV_FILE" ] || return 0
	sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*//p" "$ENV_FILE" | tail -n 1 | tr -d "\"'[:space:]"
}

write_env_file() {
	if [ -e "$ENV_FILE" ]; then
		info "kept your configuration $ENV_FILE"
		return 0
	fi
	mkdir -p "$ETC_DIR"
	chown "root:$SERVICE_GROUP" "$ETC_DIR"
	chmod 0750 "$ETC_DIR"
	local tmp="$ENV_FILE.new"
	env_file_text >"$tmp"
	chown "root:$SERVICE_GROUP" "$tmp"
	chmod 0640 "$tmp"
	mv -f "$tmp" "$ENV_FILE"
	info "wrote $ENV_FILE (commented defaults)"
}

# Write $1 with the content of $2 (a file) unless it is already identical.
# Sets FILE_CHANGED.
install_text_file() {
	FILE_CHANGED=0
	if same_content "$2" "$1"; then
		rm -f "$2"
		return 0
	fi
	chmod 0644 "$2"
	mv -f "$2" "$1"
	FILE_CHANGED=1
}

write_unit() {
	UNIT_CHANGED=0
	unit_text "$PREFIX" >"$UNIT_FILE.new"
	install_text_file "$UNIT_FILE" "$UNIT_FILE.new"
	if [ "$FILE_CHANGED" = 1 ]; then
		UNIT_CHANGED=1
		info "wrote $UNIT_FILE"
	fi

	local virt=""
	if have systemd-detect-virt; then
		virt=$(systemd-detect-virt -c 2>/dev/null) || virt=""
	fi
	if [ -n "$virt" ] && [ "$virt" != none ]; then
		mkdir -p "$DROPIN_DIR"
		container_dropin_text "$virt" >"$DROPIN_FILE.new"
		install_text_file "$DROPIN_FILE" "$DROPIN_FILE.new"
		if [ "$FILE_CHANGED" = 1 ]; then
			UNIT_CHANGED=1
			info "running in a container ($virt): wrote $DROPIN_FILE to relax the namespace options"
		fi
	elif [ -e "$DROPIN_FILE" ]; then
		rm -f "$DROPIN_FILE"
		rmdir "$DROPIN_DIR" 2>/dev/null || true
		UNIT_CHANGED=1
		info "not in a container any more: removed $DROPIN_FILE"
	fi
}

# Back up the database with the currently installed binary, before it is replaced.
pre_upgrade_backup() {
	PRE_UPGRADE_BACKUP=""
	local current="$PREFIX/bin/agentbox"
	# Only an upgrade of an instance that already has a database needs one.
	[ -x "$current" ] || return 0
	[ -f "$DATA_DIR_SYSTEM/agentbox.db" ] || return 0
	if same_content "$BINARY" "$current"; then
		return 0
	fi
	if [ "$NO_BACKUP" = 1 ]; then
		warn "--no-backup: upgrading without a pre-upgrade backup"
		return 0
	fi
	local dir="$DATA_DIR_SYSTEM/backups"
	local file
	file="$dir/pre-upgrade-$(date -u +%Y%m%dT%H%M%SZ).db"
	mkdir -p "$dir"
	chown "$SERVICE_USER:$SERVICE_GROUP" "$dir"
	chmod 0750 "$dir"
	info "==> backing up the database to $file"
	if ! (umask 027 && cd "$DATA_DIR_SYSTEM" && as_service_user env AGENTBOX_DATA_DIR="$DATA_DIR_SYSTEM" "$current" backup "$file"); then
		die "the pre-upgrade backup failed, so nothing was changed. Fix the cause (see above), or re-run with --no-backup to upgrade without it"
	fi
	PRE_UPGRADE_BACKUP=$file
}

health_url() {
	local port host
	port=$(env_file_value AGENTBOX_PORT)
	host=$(env_file_value AGENTBOX_HOST)
	case $host in
	"" | 0.0.0.0 | "::" | "[::]") host=127.0.0.1 ;;
	*:*) host="[$host]" ;;
	esac
	printf 'http://%s:%s/api/health/ready\n' "$host" "${port:-8080}"
}

# Poll /api/health/ready until it answers 200, for up to READY_TIMEOUT_S seconds.
wait_ready() {
	local url=$1 deadline
	deadline=$(($(date +%s) + READY_TIMEOUT_S))
	if ! have curl && ! have wget; then
		warn "neither curl nor wget found: only checking that the service stays up"
		sleep 5
		systemctl is-active --quiet "$SERVICE"
		return
	fi
	while [ "$(date +%s)" -lt "$deadline" ]; do
		if have curl; then
			curl -fsS --max-time 2 -o /dev/null "$url" 2>/dev/null && return 0
		else
			wget -q -T 2 -O /dev/null "$url" 2>/dev/null && return 0
		fi
		sleep 1
	done
	return 1
}

print_failure() {
	local bindir="$PREFIX/bin"
	printf '\n' >&2
	printf 'agentbox did not start or did not become ready within %ss. The last 50 log lines:\n\n' "$READY_TIMEOUT_S" >&2
	journalctl -u "$SERVICE" -n 50 --no-pager >&2 || true
	printf '\n' >&2
	if [ -e "$bindir/agentbox.prev" ]; then
		printf 'To roll back to the previous binary:\n' >&2
		printf '  sudo mv -f %s %s && sudo systemctl restart agentbox\n' "$bindir/agentbox.prev" "$bindir/agentbox" >&2
		if [ -n "$PRE_UPGRADE_BACKUP" ]; then
			printf 'If the new version changed the database, restore the pre-upgrade backup first:\n' >&2
			printf '  sudo systemctl stop agentbox\n' >&2
			printf '  sudo rm -f %s/agentbox.db-wal %s/agentbox.db-shm\n' "$DATA_DIR_SYSTEM" "$DATA_DIR_SYSTEM" >&2
			printf '  sudo -u agentbox cp %s %s/agentbox.db\n' "$PRE_UPGRADE_BACKUP" "$DATA_DIR_SYSTEM" >&2
		fi
	fi
	die "agentbox is installed but not ready (systemctl status agentbox)"
}

print_success() {
	local port ip
	port=$(env_file_value AGENTBOX_PORT)
	port=${port:-8080}
	ip=$(hostname -I 2>/dev/null | awk '{print $1}') || ip=""
	[ -n "$ip" ] || ip=$(hostname 2>/dev/null) || ip=""
	[ -n "$ip" ] || ip=localhost
	info ""
	info "agentbox ($BINARY_VERSION) is running: http://$ip:$port/"
	if [ -f "$DATA_DIR_SYSTEM/secrets/setup-token" ]; then
		info "First run: open the setup link to create the administrator. Find it with:"
		info "  sudo journalctl -u agentbox | grep setup"
	else
		info "The setup link of a new instance is in the log: sudo journalctl -u agentbox | grep setup"
	fi
	info "Data: $DATA_DIR_SYSTEM   Configuration: $ENV_FILE   Logs: journalctl -u agentbox"
}

systemd_install() {
	require_systemd
	become_root "$@"
	case $PREFIX/ in
	/home/* | /root/* | /run/user/* | /tmp/* | /var/tmp/*)
		warn "the unit's ProtectHome=/PrivateTmp= hide $PREFIX from the service; prefer a system prefix such as /usr/local or /opt/agentbox"
		;;
	esac
	ensure_user

	local had_binary=0
	[ -e "$PREFIX/bin/agentbox" ] && had_binary=1
	pre_upgrade_backup
	install_binary "$PREFIX/bin"
	if [ "$BINARY_CHANGED" = 1 ]; then
		if [ "$had_binary" = 1 ]; then
			info "upgraded $PREFIX/bin/agentbox to $BINARY_VERSION (previous binary kept as $PREFIX/bin/agentbox.prev)"
		else
			info "installed $PREFIX/bin/agentbox ($BINARY_VERSION)"
		fi
	else
		info "$PREFIX/bin/agentbox is already up to date ($BINARY_VERSION)"
	fi

	write_env_file
	write_unit

	if [ "$UNIT_CHANGED" = 1 ]; then
		systemctl daemon-reload
	fi
	if [ "$BINARY_CHANGED" = 1 ] || [ "$UNIT_CHANGED" = 1 ]; then
		if systemctl is-active --quiet "$SERVICE"; then
			info "==> restarting agentbox"
			systemctl restart "$SERVICE" || print_failure
		fi
	else
		info "nothing changed; not restarting"
	fi
	systemctl enable --now --quiet "$SERVICE" || print_failure

	local url
	url=$(health_url)
	info "==> waiting for $url (up to ${READY_TIMEOUT_S}s)"
	if wait_ready "$url"; then
		print_success
	else
		print_failure
	fi
}

systemd_uninstall() {
	become_root "$@"
	if have systemctl; then
		systemctl disable --now "$SERVICE" >/dev/null 2>&1 || true
	fi
	local removed_unit=0
	if [ -e "$UNIT_FILE" ]; then
		rm -f "$UNIT_FILE"
		info "removed $UNIT_FILE"
		removed_unit=1
	fi
	if [ -d "$DROPIN_DIR" ]; then
		if [ -e "$DROPIN_FILE" ]; then
			rm -f "$DROPIN_FILE"
			info "removed $DROPIN_FILE"
		fi
		rmdir "$DROPIN_DIR" 2>/dev/null || warn "kept $DROPIN_DIR: it holds drop-ins that install.sh did not write"
		removed_unit=1
	fi
	if [ "$removed_unit" = 1 ] && have systemctl && [ -d /run/systemd/system ]; then
		systemctl daemon-reload
		systemctl reset-failed "$SERVICE" >/dev/null 2>&1 || true
	fi
	remove_binaries "$PREFIX/bin"

	if [ "$PURGE" = 1 ]; then
		purge_data_dir "$DATA_DIR_SYSTEM" || exit 1
		rm -rf "$ETC_DIR"
		info "purged $ETC_DIR"
		if id -u "$SERVICE_USER" >/dev/null 2>&1; then
			userdel "$SERVICE_USER" >/dev/null 2>&1 || warn "could not remove the user $SERVICE_USER"
		fi
		if getent group "$SERVICE_GROUP" >/dev/null 2>&1; then
			groupdel "$SERVICE_GROUP" >/dev/null 2>&1 || true
		fi
		info "agentbox is uninstalled and its data is gone."
	else
		info ""
		info "agentbox is uninstalled. KEPT (not deleted):"
		printf '  %-20s %s\n' "$DATA_DIR_SYSTEM" "the database, secrets, git repositories and backups"
		printf '  %-20s %s\n' "$ETC_DIR" "the configuration"
		info "Re-installing picks them up again. To delete them: install.sh --uninstall --purge"
	fi
}

# ---------------------------------------------------------------------------------------------

main() {
	ORIG_ARGS=("$@")
	BINARY=""
	PREFIX=""
	SYSTEMD=1
	UNINSTALL=0
	PURGE=0
	NO_BACKUP=0
	PRINT_UNIT=0
	BINARY_VERSION=""
	BINARY_CHANGED=0
	UNIT_CHANGED=0
	FILE_CHANGED=0
	PRE_UPGRADE_BACKUP=""

	SCRIPT_PATH=$(abspath "${BASH_SOURCE[0]:-$0}")
	SCRIPT_DIR=$(cd "$(dirname "$SCRIPT_PATH")" && pwd)

	while [ $# -gt 0 ]; do
		case $1 in
		--binary)
			if [ $# -lt 2 ] || [ -z "$2" ]; then die "--binary needs a PATH (see --help)"; fi
			BINARY=$2
			shift 2
			;;
		--binary=*)
			BINARY=${1#--binary=}
			[ -n "$BINARY" ] || die "--binary needs a PATH (see --help)"
			shift
			;;
		--prefix)
			if [ $# -lt 2 ] || [ -z "$2" ]; then die "--prefix needs a DIR (see --help)"; fi
			PREFIX=$2
			shift 2
			;;
		--prefix=*)
			PREFIX=${1#--prefix=}
			[ -n "$PREFIX" ] || die "--prefix needs a DIR (see --help)"
			shift
			;;
		--no-systemd) SYSTEMD=0 && shift ;;
		--uninstall) UNINSTALL=1 && shift ;;
		--purge) PURGE=1 && shift ;;
		--no-backup) NO_BACKUP=1 && shift ;;
		--print-unit) PRINT_UNIT=1 && shift ;;
		-h | --help)
			usage
			exit 0
			;;
		*)
			printf 'install.sh: error: unknown option: %s (see install.sh --help)\n' "$1" >&2
			exit 2
			;;
		esac
	done

	if [ "$PURGE" = 1 ] && [ "$UNINSTALL" = 0 ]; then
		die "--purge only goes with --uninstall"
	fi

	# The prefix: absolute, without a trailing slash.
	if [ -z "$PREFIX" ]; then
		if [ "$SYSTEMD" = 1 ]; then
			PREFIX=/usr/local
		else
			[ -n "${HOME:-}" ] || die "HOME is not set: pass --prefix DIR"
			PREFIX="$HOME/.local"
			# ~/.local/data would be a vague name in a shared directory: use the XDG data dir.
			LOCAL_DATA_DIR="${XDG_DATA_HOME:-$HOME/.local/share}/agentbox"
		fi
	fi
	PREFIX=$(abspath "$PREFIX")
	while [ "${#PREFIX}" -gt 1 ] && [ "${PREFIX%/}" != "$PREFIX" ]; do PREFIX=${PREFIX%/}; done
	[ "$PREFIX" != / ] || PREFIX=""
	LOCAL_DATA_DIR=${LOCAL_DATA_DIR:-$PREFIX/data}

	if [ "$PRINT_UNIT" = 1 ]; then
		unit_text "$PREFIX"
		exit 0
	fi

	if [ "$SYSTEMD" = 0 ]; then
		if [ "$UNINSTALL" = 1 ]; then
			local_uninstall
		else
			resolve_binary
			local_install
		fi
		return 0
	fi

	if [ "$UNINSTALL" = 1 ]; then
		systemd_uninstall ${ORIG_ARGS[@]+"${ORIG_ARGS[@]}"}
	else
		# Build (if needed) and check the binary as the invoking user, before asking for root.
		require_systemd
		resolve_binary
		systemd_install ${ORIG_ARGS[@]+"${ORIG_ARGS[@]}"} --binary "$BINARY"
	fi
}

main "$@"
