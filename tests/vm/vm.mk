# The kernel-VM tier: `make check-vm` boots Debian 12's stock kernel under
# QEMU (TCG unless /dev/kvm works) on a pure cgroup v2 hierarchy and runs the
# placement plan and the integration suites there. See tests/vm/README.md.
#
#   VM_ACCEL=auto|tcg|kvm   accelerator (auto: KVM when /dev/kvm works, else TCG)
#   VM_CACHE=DIR            kernel, initramfs and root fs cache (/var/cache/sandboxd-vm)
#   VM_MEM=MiB VM_CPUS=N    guest size (2048, 2)
#   VM_SUITES="..."         integration suites to run in the guest (see README), or none / all
#   VM_PLACEMENTS="..."     cgroup placements to run (root service session nodeleg parent nocg)
#   VM_TIMEOUT=SEC          the whole boot's deadline (default scales with the suites chosen)
#   VM_TIME_SCALE=N         override SBX_TIME_SCALE (4 under TCG, 1 under KVM)
.PHONY: check-vm vm-clean-cache

check-vm: deps
	@start=$$(date +%s%N); \
	  $(MAKE) --no-print-directory all $(UNIT_BIN) $(INTEG_BIN) $(STRESS_BIN) \
	    $(TEST_POLICIES) || exit 1; \
	  VM_BUILD_MS=$$(( ($$(date +%s%N) - start) / 1000000 )) BUILD=$(BUILD) \
	    tests/vm/check-vm.sh

# Drops the cached kernels, initramfs images and root file systems.
vm-clean-cache:
	rm -rf $${VM_CACHE:-/var/cache/sandboxd-vm}
