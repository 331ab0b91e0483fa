#!/bin/sh
# Starts a one-node Slurm cluster on this machine (controller and only
# node), for the sharded-launch test: `sh .ci/slurm.sh start`, then
# `sh .ci/slurm.sh stop`, which stops the daemons start started (by the
# process ids it recorded in /run/sluice-slurm). Needs root.
set -eu
case "${1:-start}" in
start)
	if ! command -v slurmctld >/dev/null; then
		apt-get update -qq >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null
	fi
	host=$(hostname -s)
	cpus=$(nproc)
	mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
	mkdir -p /etc/munge /var/log/munge /run/munge /var/lib/munge /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /etc/slurm
	if [ ! -s /etc/munge/munge.key ]; then
		dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
	fi
	chown -R munge:munge /etc/munge /var/log/munge /run/munge /var/lib/munge
	chmod 0400 /etc/munge/munge.key
	chmod 0700 /etc/munge
	cat >/etc/slurm/slurm.conf <<CONF
ClusterName=sluice
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
MpiDefault=none
MaxArraySize=10001
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
	mkdir -p /run/sluice-slurm
	if ! munge -n >/dev/null 2>&1; then
		su -s /bin/sh munge -c /usr/sbin/munged
		cp /run/munge/munged.pid /run/sluice-slurm/munged.pid
	fi
	slurmctld -D >/var/log/slurm/slurmctld.out 2>&1 &
	echo $! >/run/sluice-slurm/slurmctld.pid
	slurmd -D >/var/log/slurm/slurmd.out 2>&1 &
	echo $! >/run/sluice-slurm/slurmd.pid
	for i in $(seq 1 60); do
		if sinfo -h -o %T 2>/dev/null | grep -q idle; then
			echo "slurm up: $(sinfo -h -o '%P %D %T')"
			exit 0
		fi
		sleep 1
	done
	echo "slurm did not come up; see /var/log/slurm" >&2
	exit 1
	;;
stop)
	for d in slurmd slurmctld munged; do
		if [ -f /run/sluice-slurm/$d.pid ]; then
			kill "$(cat /run/sluice-slurm/$d.pid)" 2>/dev/null || true
			rm -f /run/sluice-slurm/$d.pid
		fi
	done
	;;
esac
