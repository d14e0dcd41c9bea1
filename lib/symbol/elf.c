/* SPDX-License-Identifier: MIT */
/*
 * ELF symbol tables through libelf, the way perf's symbol-elf.c reads them.
 *
 * Which symbols: .symtab, else .dynsym; functions (STT_FUNC, STT_GNU_IFUNC)
 * and objects, defined, named, in an allocated section; untyped labels too
 * when visible and in a section whose name has "text" or "data" in it.
 * ARM mapping symbols ($a, $d, $t, $x) are not functions and are dropped.
 *
 * Where: a value is moved into the DSO's address space of machine.h, the
 * file offset, through the PT_LOAD segment that holds it (st_value -
 * p_vaddr + p_offset): a sample's map_ip is an offset in the file, so both
 * meet there. The segments come from the runtime file when the symbols come
 * from a separate debug file: a debug file's segments have no bytes and
 * its offsets are meaningless (see elf_obj_segs).
 *
 * PLT: one "name@plt" symbol per .rela.plt (or .rel.plt) entry, laid out
 * from the start of .plt after its header, as perf synthesizes them.
 *
 * Every byte comes from a file: counts and indices are checked against
 * the data libelf returns, names through elf_strptr (bounded), and a
 * malformed object fails with EBADMSG instead of reading past its end.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "symtab.h"

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif
#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

/* What a symbol needs to know of its section. */
struct sec_info {
	uint64_t addr, offset, flags;
	uint32_t type;
	bool text_or_data; /* the name has "text" or "data": perf keeps labels there */
};

static int bad_elf(const char *what, const char *why)
{
	return pcl_err(EBADMSG, "'%s': malformed ELF file (%s)", what, why);
}

/* The GNU build id among the notes of @o's SHT_NOTE sections. */
static void read_build_id(struct elf_obj *o)
{
	Elf_Scn *scn = NULL;

	while (!o->build_id_size && (scn = elf_nextscn(o->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, next, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz > 0) {
				size_t n = nh.n_descsz > 20 ? 20 : nh.n_descsz;

				memcpy(o->build_id, (char *)d->d_buf + desc_off, n);
				o->build_id_size = (int)n;
				break;
			}
			off = next;
		}
	}
}

static int elf_obj_init(struct elf_obj *o, const char *what)
{
	size_t shnum, shstrndx, phnum, size, count;
	Elf_Scn *scn = NULL;

	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF || !gelf_getehdr(o->elf, &o->ehdr))
		return pcl_err(EBADMSG, "'%s' is not an ELF file", what);
	if (elf_getshdrnum(o->elf, &shnum) || elf_getshdrstrndx(o->elf, &shstrndx) ||
	    elf_getphdrnum(o->elf, &phnum))
		return bad_elf(what, elf_errmsg(-1));
	/*
	 * libelf quietly shows no sections when their headers lie past the
	 * end (a truncated file): check the header's own numbers.
	 */
	count = o->ehdr.e_shnum ? o->ehdr.e_shnum : shnum;
	if (!elf_rawfile(o->elf, &size) ||
	    (o->ehdr.e_shoff && (!count || o->ehdr.e_shoff > size ||
				 (uint64_t)count * o->ehdr.e_shentsize > size - o->ehdr.e_shoff)))
		return bad_elf(what, "section headers past the end");
	while ((scn = elf_nextscn(o->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return bad_elf(what, elf_errmsg(-1));
		if (sh.sh_type == SHT_SYMTAB && !o->symtab) {
			o->symtab = scn;
		} else if (sh.sh_type == SHT_DYNSYM && !o->dynsym) {
			o->dynsym = scn;
			o->dynsym_idx = elf_ndxscn(scn);
		}
	}
	read_build_id(o);
	return 0;
}

int elf_obj_open(struct elf_obj *o, const char *path)
{
	struct stat st;
	int err;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pcl_err(ENOSYS, "libelf: %s", elf_errmsg(-1));
	/* Non-blocking: a FIFO named like a DSO must not hang a report. */
	o->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (o->fd < 0) {
		err = errno;
		return pcl_err(err, "cannot open '%s': %s", path, strerror(err));
	}
	if (fstat(o->fd, &st) || !S_ISREG(st.st_mode)) {
		elf_obj_close(o);
		return pcl_err(EBADMSG, "'%s' is not an ELF file (not a regular file)", path);
	}
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	err = elf_obj_init(o, path);
	if (err)
		elf_obj_close(o);
	return err;
}

int elf_obj_open_mem(struct elf_obj *o, const void *image, size_t len)
{
	int err;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!image || !len)
		return pcl_err(EBADMSG, "'[memory]' is not an ELF file (empty)");
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pcl_err(ENOSYS, "libelf: %s", elf_errmsg(-1));
	/* Our own aligned, writable copy: libelf may use it in place. */
	o->mem = malloc(len);
	if (!o->mem)
		return pcl_err(ENOMEM, "no memory for a %zu-byte ELF image", len);
	memcpy(o->mem, image, len);
	o->elf = elf_memory(o->mem, len);
	err = elf_obj_init(o, "[memory]");
	if (err)
		elf_obj_close(o);
	return err;
}

void elf_obj_close(struct elf_obj *o)
{
	if (o->elf)
		elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
	free(o->mem);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

/* The section named @name (first of them), or NULL. */
static Elf_Scn *section_by_name(struct elf_obj *o, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(o->elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(o->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(o->elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

int elf_obj_debuglink(struct elf_obj *o, char *name, size_t size, uint32_t *crc)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_by_name(o, ".gnu_debuglink", &sh);
	Elf_Data *d;
	const char *p;
	size_t len, crc_off;
	uint32_t c;

	if (!scn || sh.sh_type == SHT_NOBITS || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
		return -ENOENT;
	p = d->d_buf;
	len = strnlen(p, d->d_size);
	crc_off = (len + 1 + 3) & ~(size_t)3;
	if (!len || len >= d->d_size || len >= size || crc_off + 4 > d->d_size ||
	    memchr(p, '/', len))
		return -ENOENT;
	memcpy(name, p, len);
	name[len] = '\0';
	memcpy(&c, p + crc_off, 4);
	/* Stored in the file's byte order. */
	if ((o->ehdr.e_ident[EI_DATA] == ELFDATA2MSB) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		c = __builtin_bswap32(c);
	*crc = c;
	return 0;
}

/* Is @o a separate debug file: code sections without their bytes? */
static bool is_debug_only(struct elf_obj *o)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(o->elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    (sh.sh_flags & SHF_ALLOC))
			return sh.sh_type == SHT_NOBITS;
	}
	return false;
}

void elf_obj_segs(struct elf_obj *o, struct elf_segs *segs)
{
	size_t phnum;
	uint64_t base = UINT64_MAX;
	bool guess = is_debug_only(o);

	segs->n = 0;
	if (elf_getphdrnum(o->elf, &phnum))
		return;
	for (size_t i = 0; i < phnum && segs->n < ELF_MAX_SEGS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(o->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		segs->s[segs->n].vaddr = ph.p_vaddr;
		segs->s[segs->n].memsz = ph.p_memsz;
		segs->s[segs->n].offset = ph.p_offset;
		segs->n++;
		if (ph.p_vaddr < base)
			base = ph.p_align > 1 && !(ph.p_align & (ph.p_align - 1))
				       ? ph.p_vaddr & ~(ph.p_align - 1)
				       : ph.p_vaddr;
	}
	/*
	 * objcopy --only-keep-debug keeps the program headers but not the
	 * bytes: p_offset no longer says where a segment lies in the real
	 * file. With no real file at hand, assume the usual layout (the file
	 * mapped from its first segment's page on).
	 */
	if (guess) {
		for (int i = 0; i < segs->n; i++)
			segs->s[i].offset = segs->s[i].vaddr - base;
	}
}

/* @v in the DSO's space: through its PT_LOAD segment, else its section's placement. */
static uint64_t to_file_offset(uint64_t v, const struct elf_segs *segs, const struct sec_info *sec)
{
	for (int i = 0; i < segs->n; i++) {
		if (v >= segs->s[i].vaddr && v - segs->s[i].vaddr < segs->s[i].memsz)
			return v - segs->s[i].vaddr + segs->s[i].offset;
	}
	if (sec->type != SHT_NOBITS)
		return v - sec->addr + sec->offset;
	return v;
}

/* Every section's placement, flags and name class; NULL (bad file, no memory). */
static struct sec_info *read_sections(struct elf_obj *o, size_t *nsec)
{
	size_t shnum, shstrndx;
	struct sec_info *secs;
	Elf_Scn *scn = NULL;

	if (elf_getshdrnum(o->elf, &shnum) || elf_getshdrstrndx(o->elf, &shstrndx) || !shnum)
		return NULL;
	secs = calloc(shnum, sizeof(*secs));
	if (!secs)
		return NULL;
	while ((scn = elf_nextscn(o->elf, scn))) {
		size_t i = elf_ndxscn(scn);
		GElf_Shdr sh;
		const char *n;

		if (i >= shnum || !gelf_getshdr(scn, &sh))
			continue;
		secs[i].addr = sh.sh_addr;
		secs[i].offset = sh.sh_offset;
		secs[i].flags = sh.sh_flags;
		secs[i].type = sh.sh_type;
		n = elf_strptr(o->elf, shstrndx, sh.sh_name);
		secs[i].text_or_data = n && (strstr(n, "text") || strstr(n, "data"));
	}
	*nsec = shnum;
	return secs;
}

/* ARM's mapping symbols mark code/data boundaries, not functions. */
static bool arm_mapping_symbol(const GElf_Ehdr *eh, const char *name)
{
	return (eh->e_machine == EM_ARM || eh->e_machine == EM_AARCH64) && name[0] == '$' &&
	       name[1] && strchr("adtx", name[1]) && (name[2] == '\0' || name[2] == '.');
}

/* Is @sym one perf keeps? Sets *label for an untyped one. */
static bool kept_type(const GElf_Sym *sym, bool *label)
{
	int type = GELF_ST_TYPE(sym->st_info), vis = GELF_ST_VISIBILITY(sym->st_other);

	*label = false;
	if (!sym->st_name || sym->st_shndx == SHN_UNDEF)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT)
		return true;
	*label = type == STT_NOTYPE && sym->st_shndx != SHN_ABS && vis != STV_HIDDEN &&
		 vis != STV_INTERNAL;
	return *label;
}

static int add_symbols(struct symtab_builder *b, struct elf_obj *o, Elf_Scn *scn,
		       const struct elf_segs *segs, const char *what)
{
	GElf_Shdr sh;
	Elf_Data *d;
	struct sec_info *secs;
	size_t nsec = 0, nsyms, symsz = gelf_fsize(o->elf, ELF_T_SYM, 1, EV_CURRENT);

	if (!gelf_getshdr(scn, &sh) || !(d = elf_getdata(scn, NULL)) || (!d->d_buf && d->d_size))
		return bad_elf(what, "unreadable symbol table");
	if (!symsz)
		return bad_elf(what, "unknown symbol size");
	secs = read_sections(o, &nsec);
	if (!secs)
		return pcl_err(ENOMEM, "'%s': cannot read its sections", what);
	nsyms = d->d_size / symsz;
	for (size_t i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		const struct sec_info *sec;
		const char *name;
		uint64_t v;
		bool label;

		if (!gelf_getsym(d, (int)i, &sym) || !kept_type(&sym, &label))
			continue;
		/* Absolute and special (common, extended-index) symbols have no section. */
		if (sym.st_shndx == SHN_ABS || sym.st_shndx >= SHN_LORESERVE ||
		    sym.st_shndx >= nsec)
			continue;
		sec = &secs[sym.st_shndx];
		if (!(sec->flags & SHF_ALLOC) || (label && !sec->text_or_data))
			continue;
		name = elf_strptr(o->elf, sh.sh_link, sym.st_name);
		if (!name || !*name || arm_mapping_symbol(&o->ehdr, name))
			continue;
		v = sym.st_value;
		/* ARM: Thumb functions have the low bit set. */
		if (o->ehdr.e_machine == EM_ARM && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
			v &= ~(uint64_t)1;
		if (segs)
			v = to_file_offset(v, segs, sec);
		builder_add(b, v, v + sym.st_size < v ? UINT64_MAX : v + sym.st_size,
			    GELF_ST_BIND(sym.st_info), false, false, name, NULL);
	}
	free(secs);
	return 0;
}

/* perf's PLT layouts: header and entry sizes by machine, else .plt's entry size. */
static void plt_sizes(const GElf_Ehdr *eh, const GElf_Shdr *plt, uint64_t *hdr, uint64_t *ent)
{
	switch (eh->e_machine) {
	case EM_ARM:
		*hdr = 20, *ent = 12;
		break;
	case EM_AARCH64:
		*hdr = 32, *ent = 16;
		break;
	case EM_SPARC:
		*hdr = 48, *ent = 12;
		break;
	case EM_SPARCV9:
		*hdr = 128, *ent = 32;
		break;
	default:
		*hdr = *ent = plt->sh_entsize;
		break;
	}
}

/* The name of dynamic symbol @idx, or "" (perf prints such slots as "@plt"). */
static const char *dynsym_name(struct elf_obj *o, Elf_Data *syms, size_t strndx, size_t idx)
{
	GElf_Sym sym;
	const char *n;

	if (idx > INT32_MAX || !gelf_getsym(syms, (int)idx, &sym))
		return "";
	n = elf_strptr(o->elf, strndx, sym.st_name);
	return n ? n : "";
}

static void add_plt(struct symtab_builder *b, struct elf_obj *o)
{
	GElf_Shdr rel_sh, plt_sh, dyn_sh;
	Elf_Scn *rel;
	Elf_Data *reld, *syms;
	uint64_t off, hdr, ent, nrel;

	if (!o->dynsym || !gelf_getshdr(o->dynsym, &dyn_sh))
		return;
	rel = section_by_name(o, ".rela.plt", &rel_sh);
	if (!rel)
		rel = section_by_name(o, ".rel.plt", &rel_sh);
	if (!rel || rel_sh.sh_link != o->dynsym_idx || !rel_sh.sh_entsize ||
	    (rel_sh.sh_type != SHT_RELA && rel_sh.sh_type != SHT_REL) ||
	    !section_by_name(o, ".plt", &plt_sh) || plt_sh.sh_type == SHT_NOBITS)
		return;
	reld = elf_getdata(rel, NULL);
	syms = elf_getdata(o->dynsym, NULL);
	if (!reld || !reld->d_buf || !syms || !syms->d_buf)
		return;
	plt_sizes(&o->ehdr, &plt_sh, &hdr, &ent);
	if (!ent)
		return;
	off = plt_sh.sh_offset + hdr;
	nrel = rel_sh.sh_size / rel_sh.sh_entsize;
	for (uint64_t i = 0; i < nrel && i <= INT32_MAX; i++) {
		uint64_t info;

		if (rel_sh.sh_type == SHT_RELA) {
			GElf_Rela r;

			if (!gelf_getrela(reld, (int)i, &r))
				break;
			info = r.r_info;
		} else {
			GElf_Rel r;

			if (!gelf_getrel(reld, (int)i, &r))
				break;
			info = r.r_info;
		}
		builder_add(b, off, off + ent < off ? UINT64_MAX : off + ent, STB_GLOBAL, false,
			    true, dynsym_name(o, syms, dyn_sh.sh_link, GELF_R_SYM(info)), "@plt");
		off += ent;
	}
}

struct pcl_symtab *elf_obj_symtab(struct elf_obj *syms, const struct elf_segs *segs,
				  struct elf_obj *plt, unsigned int flags, const char *what)
{
	struct symtab_builder b;
	Elf_Scn *scn = syms->symtab ? syms->symtab : syms->dynsym;
	struct pcl_symtab *t;
	int err;

	builder_init(&b, flags);
	if (scn) {
		err = add_symbols(&b, syms, scn, segs, what);
		if (err) {
			builder_release(&b);
			errno = -err;
			return NULL;
		}
	}
	/* perf synthesizes the PLT only when the object had symbols. */
	if (plt && b.n)
		add_plt(&b, plt);
	t = builder_finish(&b, FIXUP_ELF);
	if (!t)
		pcl_err(ENOMEM, "'%s': out of memory for its symbols", what);
	return t;
}

/* A table from an open object: moved to file offsets unless asked not to. */
static struct pcl_symtab *load_obj(struct elf_obj *o, unsigned int flags, const char *what)
{
	struct elf_segs segs;
	bool absolute = flags & PCL_SYMTAB_ABSOLUTE;

	elf_obj_segs(o, &segs);
	return elf_obj_symtab(o, absolute || !segs.n ? NULL : &segs, absolute ? NULL : o, flags,
			      what);
}

PCL_API struct pcl_symtab *pcl_symtab__load_elf(const char *path, unsigned int flags)
{
	struct elf_obj o;
	struct pcl_symtab *t;
	int err;

	if (!path) {
		errno = EINVAL;
		pcl_err(EINVAL, "no ELF path given");
		return NULL;
	}
	err = elf_obj_open(&o, path);
	if (err) {
		errno = -err;
		return NULL;
	}
	t = load_obj(&o, flags, path);
	err = errno;
	elf_obj_close(&o);
	errno = err;
	return t;
}

PCL_API struct pcl_symtab *pcl_symtab__load_elf_mem(const void *image, size_t len,
						    unsigned int flags)
{
	struct elf_obj o;
	struct pcl_symtab *t;
	int err = elf_obj_open_mem(&o, image, len);

	if (err) {
		errno = -err;
		return NULL;
	}
	t = load_obj(&o, flags, "[memory]");
	err = errno;
	elf_obj_close(&o);
	errno = err;
	return t;
}

/* ---- CRC-32 of .gnu_debuglink (the zlib polynomial, reflected) ---- */

static uint32_t crc_table[256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

int file_crc32(const char *path, uint32_t *crc)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint32_t c = 0xffffffffu;
	struct stat st;
	const uint8_t *p;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	pthread_once(&once, crc_init);
	if (st.st_size) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			int err = errno;

			close(fd);
			return -err;
		}
		for (off_t i = 0; i < st.st_size; i++)
			c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
		munmap((void *)p, (size_t)st.st_size);
	}
	close(fd);
	*crc = ~c;
	return 0;
}
