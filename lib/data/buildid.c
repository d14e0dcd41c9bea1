/* SPDX-License-Identifier: MIT */
/*
 * Build ids for the BUILD_ID feature: read from ELF notes with libelf, and
 * the set of mapped files that got samples.
 *
 * Maps are kept per pid as they arrive (MMAP/MMAP2, synthesized or from the
 * kernel); a forked child that has no maps of its own yet looks in its
 * parent's. A sample marks the file whose map holds its ip; kernel samples
 * mark the kernel. Files are looked up once each at the end.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

#define NT_GNU_BUILD_ID_TYPE 3

/* Scan a buffer of ELF notes (4-byte aligned) for the GNU build id. */
static int notes_build_id(const uint8_t *p, size_t len, uint8_t id[20])
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		size_t name_off = off + 12, desc_off;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		desc_off = name_off + ((namesz + 3) & ~3u);
		if (namesz > len || descsz > len || desc_off + descsz > len)
			return -EBADMSG;
		if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 &&
		    !memcmp(p + name_off, "GNU", 4)) {
			size_t n = descsz > 20 ? 20 : descsz;

			memcpy(id, p + desc_off, n);
			return (int)n;
		}
		off = desc_off + ((descsz + 3) & ~3u);
	}
	return -ENOENT;
}

PCL_API int pcl_build_id_read(const char *path, uint8_t id[20])
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	int fd, ret = -ENOENT;

	if (!path || !id)
		return pcl_err(EINVAL, "pcl_build_id_read: invalid argument");
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pcl_err(ENOSYS, "pcl_build_id_read: %s: no libelf support", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pcl_err(errno, "pcl_build_id_read: %m");
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = -ENOEXEC;
		goto out;
	}
	while (ret < 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			ret = notes_build_id(d->d_buf, d->d_size, id);
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

PCL_API int pcl_build_id_kernel(uint8_t id[20])
{
	uint8_t buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return pcl_err(errno, "pcl_build_id_kernel: %m");
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ENOENT;
	return notes_build_id(buf, (size_t)n, id);
}

struct map {
	uint32_t pid;
	uint64_t start, end;
	int dso;
};

struct dso {
	char *name;
	bool hit;
	bool written; /* its entry is out (write_new) */
};

struct fork_link {
	uint32_t pid, ppid;
};

struct pcl_dso_hits {
	struct map *maps;
	int nr_maps, alloc_maps;
	struct dso *dsos;
	int nr_dsos, alloc_dsos;
	struct fork_link *forks;
	int nr_forks, alloc_forks;
	bool kernel_hit, kernel_written;
	bool all;     /* --buildid-all: every file counts as hit */
	bool files_only; /* not the kernel nor the vDSO: this machine's may not be the recorded ones */
	bool pending; /* hits not written yet */
	uint64_t last_lookup; /* index of the last map found: samples come in runs */
};

PCL_API struct pcl_dso_hits *pcl_dso_hits__new(void)
{
	return calloc(1, sizeof(struct pcl_dso_hits));
}

PCL_API void pcl_dso_hits__free(struct pcl_dso_hits *h)
{
	if (!h)
		return;
	for (int i = 0; i < h->nr_dsos; i++)
		free(h->dsos[i].name);
	free(h->dsos);
	free(h->maps);
	free(h->forks);
	free(h);
}

static int dso_index(struct pcl_dso_hits *h, const char *name)
{
	for (int i = h->nr_dsos - 1; i >= 0; i--)
		if (!strcmp(h->dsos[i].name, name))
			return i;
	if (grow_array((void **)&h->dsos, &h->alloc_dsos, h->nr_dsos + 1, sizeof(*h->dsos)))
		return -1;
	h->dsos[h->nr_dsos].name = strdup(name);
	if (!h->dsos[h->nr_dsos].name)
		return -1;
	h->dsos[h->nr_dsos].hit = h->all;
	h->dsos[h->nr_dsos].written = false;
	h->pending |= h->all;
	return h->nr_dsos++;
}

static void add_map(struct pcl_dso_hits *h, const struct pcl_record *r)
{
	const char *f = r->mmap.filename;
	int d;

	if (!f || (r->misc & PERF_RECORD_MISC_MMAP_DATA))
		return;
	if (h->all && !h->kernel_hit && !strncmp(f, "[kernel.kallsyms]", 17)) {
		h->kernel_hit = h->pending = true;
		return;
	}
	/* only files and the vDSO have build ids: not [heap], //anon or the kernel's maps */
	if (f[0] != '/' && strcmp(f, "[vdso]"))
		return;
	d = dso_index(h, f);
	/* perf 6.1 names the vDSO in the table, samples in it or not */
	if (d >= 0 && !h->dsos[d].hit && !strcmp(f, "[vdso]"))
		h->dsos[d].hit = h->pending = true;
	if (d < 0 ||
	    grow_array((void **)&h->maps, &h->alloc_maps, h->nr_maps + 1, sizeof(*h->maps)))
		return;
	h->maps[h->nr_maps++] =
		(struct map){ r->mmap.pid, r->mmap.addr, r->mmap.addr + r->mmap.len, d };
}

static int find_map(struct pcl_dso_hits *h, uint32_t pid, uint64_t ip)
{
	uint64_t k = h->last_lookup;

	if (k < (uint64_t)h->nr_maps && h->maps[k].pid == pid && ip >= h->maps[k].start &&
	    ip < h->maps[k].end)
		return (int)k;
	/* newest first: a later map over the same range replaces an older one */
	for (int i = h->nr_maps - 1; i >= 0; i--) {
		if (h->maps[i].pid == pid && ip >= h->maps[i].start && ip < h->maps[i].end) {
			h->last_lookup = (uint64_t)i;
			return i;
		}
	}
	return -1;
}

static void add_sample(struct pcl_dso_hits *h, const struct pcl_record *r)
{
	uint32_t pid = r->sample.pid;
	int m = -1, depth = 0;

	if ((r->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
		h->pending |= !h->kernel_hit;
		h->kernel_hit = true;
		return;
	}
	while ((m = find_map(h, pid, r->sample.ip)) < 0 && depth++ < 16) {
		int i;

		for (i = 0; i < h->nr_forks && h->forks[i].pid != pid; i++)
			;
		if (i == h->nr_forks)
			break;
		pid = h->forks[i].ppid;
	}
	if (m >= 0 && !h->dsos[h->maps[m].dso].hit) {
		h->dsos[h->maps[m].dso].hit = true;
		h->pending = true;
	}
}

PCL_API void pcl_dso_hits__record(struct pcl_dso_hits *h, const struct pcl_record *rec)
{
	if (!h || !rec)
		return;
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		add_map(h, rec);
		break;
	case PERF_RECORD_FORK:
		if (rec->task.pid != rec->task.ppid &&
		    !grow_array((void **)&h->forks, &h->alloc_forks, h->nr_forks + 1,
				sizeof(*h->forks)))
			h->forks[h->nr_forks++] =
				(struct fork_link){ rec->task.pid, rec->task.ppid };
		break;
	case PERF_RECORD_SAMPLE:
		if (rec->sample.sample_type & PERF_SAMPLE_IP)
			add_sample(h, rec);
		break;
	}
}

PCL_API void pcl_dso_hits__set_all(struct pcl_dso_hits *h, bool all)
{
	if (!h)
		return;
	h->all = all;
	for (int i = 0; all && i < h->nr_dsos; i++) {
		h->pending |= !h->dsos[i].hit;
		h->dsos[i].hit = true;
	}
}

PCL_API void pcl_dso_hits__set_files_only(struct pcl_dso_hits *h, bool files_only)
{
	if (h)
		h->files_only = files_only;
}

PCL_API void pcl_dso_hits__reset(struct pcl_dso_hits *h)
{
	if (!h)
		return;
	h->kernel_hit = h->kernel_written = false;
	h->pending = false;
	for (int i = 0; i < h->nr_dsos; i++) {
		/* what --buildid-all and the vDSO rule count as hit, they count again */
		h->dsos[i].hit = h->all || !strcmp(h->dsos[i].name, "[vdso]");
		h->dsos[i].written = false;
		h->pending |= h->dsos[i].hit;
	}
	if (h->all && h->nr_dsos)
		h->kernel_hit = true;
}

PCL_API bool pcl_dso_hits__pending(const struct pcl_dso_hits *h)
{
	return h && h->pending;
}

PCL_API int pcl_dso_hits__write_new(struct pcl_dso_hits *h, struct pcl_data_writer *w)
{
	uint8_t id[20];
	int n = 0, size;

	if (!h || !w)
		return pcl_err(EINVAL, "pcl_dso_hits__write_new: invalid argument");
	h->pending = false;
	if (h->kernel_hit && !h->kernel_written && !h->files_only) {
		h->kernel_written = true;
		if ((size = pcl_build_id_kernel(id)) > 0 &&
		    !pcl_data_writer__add_build_id(w, -1, true, id, (uint8_t)size,
						   "[kernel.kallsyms]"))
			n++;
	}
	for (int i = 0; i < h->nr_dsos; i++) {
		struct dso *d = &h->dsos[i];

		if (!d->hit || d->written || (h->files_only && d->name[0] != '/'))
			continue;
		d->written = true;
		size = strcmp(d->name, "[vdso]") ? pcl_build_id_read(d->name, id)
						 : pcl_build_id_vdso(id);
		if (size > 0 &&
		    !pcl_data_writer__add_build_id(w, -1, false, id, (uint8_t)size, d->name))
			n++;
	}
	return n;
}

PCL_API int pcl_dso_hits__write_build_ids(struct pcl_dso_hits *h, struct pcl_data_writer *w)
{
	return pcl_dso_hits__write_new(h, w);
}
