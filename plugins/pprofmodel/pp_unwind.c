/* DWARF unwinding with libdwfl; see <perfsink/pprof_symbols.h>. */
#include <perfsink/pprof_symbols.h>

#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

/* perf's x86 user register numbers (asm/perf_regs.h). */
enum { R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP, R_FLAGS, R_CS, R_SS, R_DS, R_ES, R_FS, R_GS,
       R_R8, R_R9, R_R10, R_R11, R_R12, R_R13, R_R14, R_R15 };

/* One process's Dwfl, and the sample being unwound in it. */
struct unwind_state {
	Dwfl *dwfl;
	uint32_t gen;        /* the process's maps it was made from */
	int attached;
	const struct pp_sample *s;
	uint64_t *pcs;
	unsigned n, max;
};

/* No separate debug files: .eh_frame in the mapped file is what unwinds
 * (a Dwfl per process would decompress each library's debug file again). */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink_file;
	(void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks offline_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
};

int pp_unwind_supported(void)
{
#if defined(__x86_64__)
	return 1;
#else
	return 0;
#endif
}

void pp_unwind_free(void *v)
{
	struct unwind_state *u = v;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	free(u);
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwind_state *u = arg;
	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return (pid_t)u->s->tid;
}

/* Only the stack copy is memory here (perf reads other addresses from the
 * files; CFI unwinding does not need them). */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwind_state *u = arg;
	uint64_t sp = pp_sample_reg(u->s, R_SP);
	(void)dwfl;
	if (addr < sp || addr - sp + sizeof(*result) > u->s->stack_size)
		return false;
	memcpy(result, u->s->stack + (addr - sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct unwind_state *u = arg;
	/* DWARF's x86-64 numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip. */
	static const unsigned order[17] = { R_AX, R_DX, R_CX, R_BX, R_SI, R_DI, R_BP, R_SP, R_R8, R_R9,
					    R_R10, R_R11, R_R12, R_R13, R_R14, R_R15, R_IP };
	Dwarf_Word regs[17];
	for (unsigned i = 0; i < 17; i++)
		regs[i] = pp_sample_reg(u->s, order[i]);
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks thread_cb = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* Report every file p maps, each once at its load base (the lowest map's
 * start - pgoff, as perf reports a module). */
static void report_maps(struct pp_procs *ps, struct pp_proc *p, struct pp_symbols *sy, Dwfl *dwfl)
{
	for (size_t i = 0; i < p->n; i++) {
		struct pp_dso *d = &ps->dso[p->m[i].dso];
		const char *path = pp_symbols_open(sy, d);
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = p->m[j].dso == p->m[i].dso;
		if (path && !seen)
			dwfl_report_elf(dwfl, d->name, path, -1, p->m[i].start - p->m[i].pgoff, false);
	}
	dwfl_report_end(dwfl, NULL, NULL);
}

/* p's Dwfl, made again when its maps changed; NULL when it cannot be made. */
static struct unwind_state *state_of(struct pp_procs *ps, struct pp_proc *p, struct pp_symbols *sy)
{
	struct unwind_state *u = p->unwind;
	if (u && u->gen == p->gen)
		return u->attached ? u : NULL;
	if (!u) {
		if (!(u = p->unwind = calloc(1, sizeof(*u))))
			return NULL;
		ps->unwinders.held++;
	}
	if (u->dwfl)
		dwfl_end(u->dwfl);
	u->gen = p->gen;
	u->attached = 0;
	ps->unwinders.made++;
	if (!(u->dwfl = dwfl_begin(&offline_cb)))
		return NULL;
	report_maps(ps, p, sy, u->dwfl);
	u->attached = dwfl_attach_state(u->dwfl, NULL, (pid_t)p->pid, &thread_cb, u);
	return u->attached ? u : NULL;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwind_state *u = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	u->pcs[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

unsigned pp_unwind(struct pp_procs *ps, struct pp_proc *p, struct pp_symbols *sy, const struct pp_sample *s,
		   uint64_t *pcs, unsigned max)
{
	if (!pp_unwind_supported() || !s->regs || !s->stack_size || !max)
		return 0;
	p->unwind_used = ++ps->unwinders.clock;
	struct unwind_state *u = state_of(ps, p, sy);
	if (!u)
		return 0;
	u->s = s;
	u->pcs = pcs;
	u->n = 0;
	u->max = max;
	dwfl_getthread_frames(u->dwfl, (pid_t)s->tid, frame_cb, u);
	return u->n;
}
