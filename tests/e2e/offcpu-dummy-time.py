#!/usr/bin/env python3
# offcpu-dummy-time.py IN OUT: a copy of pcl's perf.data IN whose
# offcpu-time samples have perf's BPF times (~0 << 32 and up, as
# tools/perf/util/bpf_off_cpu.c writes them), for t-offcpu-export.sh.
import struct,sys
src,dst=sys.argv[1],sys.argv[2]
b=bytearray(open(src,'rb').read())
magic,hsize,attr_size=struct.unpack_from('<8sQQ',b,0)
ao,asz,do,dsz=struct.unpack_from('<QQQQ',b,24)
ids=set()
for off in range(ao,ao+asz,attr_size):
    typ,size,config,period,stype=struct.unpack_from('<IIQQQ',b,off)
    io,isz=struct.unpack_from('<QQ',b,off+attr_size-16)
    if typ==1 and config==10:
        assert stype & 0x10000  # IDENTIFIER
        ids|=set(struct.unpack_from('<%dQ'%(isz//8),b,io))
        p=do; n=0; k=0
while p<do+dsz:
    t,misc,sz=struct.unpack_from('<IHH',b,p)
    if t==9:
        (ident,)=struct.unpack_from('<Q',b,p+8)
        if ident in ids:
            # IDENTIFIER, IP, TID, TIME
            struct.pack_into('<Q',b,p+8+24,(0xffffffff<<32)+k); k+=1
    if sz==0: break
    p+=sz
open(dst,'wb').write(b)
print(k)
