! ring_f: the Fortran twin of t/progs/ring.c (use mpi bindings): pass a
! token once around all ranks; same output format:
!   ring: rank R of S on HOST passed token T
!   ring: done size=S rounds=1 token=V
program ring_f
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, token, nxt, prv, hlen
  integer :: status(MPI_STATUS_SIZE)
  character(len=MPI_MAX_PROCESSOR_NAME) :: host

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Get_processor_name(host, hlen, ierr)
  nxt = mod(rank + 1, nprocs)
  prv = mod(rank + nprocs - 1, nprocs)
  token = 0
  if (rank == 0) then
     token = 1
     if (nprocs > 1) then
        call MPI_Send(token, 1, MPI_INTEGER, nxt, 0, MPI_COMM_WORLD, ierr)
        call MPI_Recv(token, 1, MPI_INTEGER, prv, 0, MPI_COMM_WORLD, status, ierr)
     end if
  else
     call MPI_Recv(token, 1, MPI_INTEGER, prv, 0, MPI_COMM_WORLD, status, ierr)
     token = token + 1
     call MPI_Send(token, 1, MPI_INTEGER, nxt, 0, MPI_COMM_WORLD, ierr)
  end if
  write (*, '(A,I0,A,I0,A,A,A,I0)') 'ring: rank ', rank, ' of ', nprocs, ' on ', &
       host(1:hlen), ' passed token ', token
  flush (6)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     if (token == nprocs) then
        write (*, '(A,I0,A,I0)') 'ring: done size=', nprocs, ' rounds=1 token=', token
     else
        write (*, '(A,I0,A,I0,A)') 'ring: done size=', nprocs, ' rounds=1 token=', token, ' WRONG'
     end if
     flush (6)
  end if
  call MPI_Finalize(ierr)
end program ring_f
